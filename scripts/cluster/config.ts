// The config every instance of `npm run cluster` runs with: a base config (config/default.json unless told
// otherwise) with its chain pointed at the shared loopback chain, as a service on a real cluster would be.
// Pure: the same inputs give the same document, and the base is left as it was.

/** Where the shared chain answers and who the one maker is (the chain funded that keypair). */
export interface ClusterChain {
  url: string;
  wsUrl: string;
  programId: string;
  makerKeypairPath: string;
}

export interface ClusterSettings {
  /** cluster.lease_ttl_seconds; the base config's (or the service's default) when absent. */
  leaseTtlSeconds?: number;
  /**
   * cluster.secret: the instances sign the commands they forward to each other with it (an instance on
   * DATABASE_URL refuses to start without one); the base config's when absent.
   */
  secret?: string;
}

type ConfigDocument = Record<string, unknown>;

export function clusterConfigDocument(
  base: ConfigDocument,
  chain: ClusterChain,
  settings: ClusterSettings = {},
): ConfigDocument {
  const doc = structuredClone(base);
  doc.chain = {
    kind: 'rpc',
    url: chain.url,
    ws_url: chain.wsUrl,
    program_id: chain.programId,
    maker_keypair_path: chain.makerKeypairPath,
  };
  // On rpc the feeds are the chain's to publish (npm run chain does); the service's own publisher is ignored.
  const prices = doc.price_source as ConfigDocument | undefined;
  if (prices && 'embedded_publisher' in prices) delete prices.embedded_publisher;
  if (settings.leaseTtlSeconds !== undefined) {
    doc.cluster = {
      ...(doc.cluster as ConfigDocument | undefined),
      lease_ttl_seconds: settings.leaseTtlSeconds,
    };
  }
  if (settings.secret !== undefined) {
    doc.cluster = { ...(doc.cluster as ConfigDocument | undefined), secret: settings.secret };
  }
  return doc;
}
