// Builds the Fastify application: JSON-only API under /v1, the interface's error envelope for every error
// (Fastify's own included), request lines in origin form only, CORS for public routes from the configured
// origins (never for operator routes), per-client rate limit (a forwarded command counts against the client
// its signing peer vouches for), body limit, OpenAPI generated from the route schemas.
import { randomUUID } from 'node:crypto';
import cors from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Ajv } from 'ajv';
import ajvFormats from 'ajv-formats';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { ClusterDoors, originFormTarget, TradeOwnedElsewhere } from '../cluster/index.ts';
import { isStorageFull } from '../store/index.ts';
import {
  ApiError,
  ERROR_CODES,
  type ErrorCode,
  envelope,
  fromRuntimeError,
  RuntimeError,
  STORAGE_FULL_RETRY_SECONDS,
} from './errors.ts';
import { stringifyJson } from './json.ts';
import { type HttpDeps, registerRoutes } from './routes/index.ts';
import { OPERATOR_SECURITY_SCHEMES, OperatorRoutes } from './routes/operator.ts';
import type { TypeBoxApp } from './typebox-app.ts';

export type { HttpDeps } from './routes/index.ts';
export type { TypeBoxApp } from './typebox-app.ts';

export interface HttpOptions {
  /** pino options, or false for no logging (tests). */
  logger: FastifyServerOptions['logger'] | false;
}

type HttpSettings = HttpDeps['config']['http'];

export async function buildHttpApp(deps: HttpDeps, options: HttpOptions): Promise<TypeBoxApp> {
  const { http } = deps.config;
  const app = createApp(http, options);
  requireOriginForm(app);
  // JSON only: Fastify would otherwise parse text/plain bodies into strings.
  app.removeContentTypeParser('text/plain');
  installValidation(app);
  app.setSerializerCompiler(() => stringifyJson);
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('x-request-id', request.id);
    return payload;
  });
  const cluster = new ClusterDoors({
    settings: deps.config.cluster,
    runId: deps.run.runId,
    ownership: deps.runtime.ownership,
    unavailable: (message) => envelope('runtime_unavailable', message),
    tampered: (message) => new ApiError('validation_failed', message),
    warn: (message) => app.log.warn(message),
    onOutcome: (outcome) => deps.metrics.commandForwarded(outcome),
  });
  cluster.install(app);
  // The client a request counts for: the rate limit's key, and the holder of the holds an RFQ makes.
  const clientOf = (request: FastifyRequest) => cluster.clientOf(request);
  installErrorHandling(app, cluster);
  const operatorRoutes = new OperatorRoutes();
  await registerCors(app, http, operatorRoutes);
  await registerRateLimit(app, http, clientOf);
  await registerOpenApi(app, deps.version);
  await registerRoutes(app, deps, operatorRoutes, clientOf);
  await app.ready();
  return app;
}

function createApp(http: HttpSettings, options: HttpOptions): TypeBoxApp {
  return Fastify({
    logger: options.logger,
    bodyLimit: http.bodyLimitBytes,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(given) ? given : randomUUID();
    },
    requestIdHeader: false,
    // http.trust_proxy: which X-Forwarded-For hops name the client (its address keys the rate limit).
    trustProxy: typeof http.trustProxy === 'object' ? [...http.trustProxy] : http.trustProxy,
    // Errors the router raises before any handler (a malformed %-escape, an over-long path parameter).
    frameworkErrors: (error, request, reply: FastifyReply) => {
      reply.header('x-request-id', request.id);
      reply.code(400).send(envelope('validation_failed', `The request path is not valid: ${error.message}`));
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as TypeBoxApp;
}

/**
 * Origin form only, before anything else runs: a request line in absolute form ("POST http://host/…")
 * still matches a route, and its URL would carry a host of the caller's choosing.
 */
function requireOriginForm(app: TypeBoxApp): void {
  app.addHook('onRequest', async (request, reply) => {
    if (originFormTarget(request.raw.url) !== null) return;
    reply.header('x-request-id', request.id);
    return reply
      .code(400)
      .send(
        envelope(
          'validation_failed',
          'The request target must be a path (origin form, starting with a single "/"), not an absolute URL.',
        ),
      );
  });
}

function installErrorHandling(app: TypeBoxApp, cluster: ClusterDoors): void {
  app.setErrorHandler(function (this: FastifyInstance, thrown, request, reply) {
    // A command for a trade another live instance owns is that instance's to serve.
    if (thrown instanceof TradeOwnedElsewhere) return cluster.forward(thrown, request, reply);
    return handleError.call(this, thrown as FastifyError, request, reply);
  });
  app.setNotFoundHandler((request, reply) => {
    reply
      .code(404)
      .send(envelope('route_not_found', `No route ${request.method} ${request.url.split('?')[0]}.`));
  });
}

/**
 * Public routes only: operator routes mark themselves cors: false (operator.ts), and a preflight for one
 * is refused here (no route has answered yet, so its path says which it is). No origin is allowed unless
 * configured: the swap page is served by the service itself, and same-origin requests need no CORS.
 */
async function registerCors(app: TypeBoxApp, http: HttpSettings, operatorRoutes: OperatorRoutes) {
  const allowed = http.corsOrigins.includes('*')
    ? '*'
    : http.corsOrigins.length === 0
      ? false
      : [...http.corsOrigins];
  const corsOptions = {
    methods: ['GET', 'POST', 'OPTIONS'],
    allowedHeaders: ['content-type', 'authorization', 'last-event-id', 'x-request-id'],
    exposedHeaders: ['x-request-id', 'retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining'],
    maxAge: 600,
  };
  await app.register(cors, {
    delegator: (request, callback) => {
      const operatorPreflight =
        request.method === 'OPTIONS' &&
        operatorRoutes.matches(
          String(request.headers['access-control-request-method'] ?? ''),
          request.raw.url ?? '',
        );
      callback(null, { ...corsOptions, origin: operatorPreflight ? false : allowed });
    },
  });
}

async function registerRateLimit(
  app: TypeBoxApp,
  http: HttpSettings,
  clientOf: (request: FastifyRequest) => string,
) {
  await app.register(rateLimit, {
    max: http.rateLimitPerMinute,
    timeWindow: '1 minute',
    keyGenerator: clientOf,
    errorResponseBuilder: (_request, context) =>
      new ApiError(
        'rate_limited',
        `Rate limit of ${context.max} requests a minute exceeded; retry in ${context.after}.`,
      ),
  });
}

const OPENAPI_TAGS = [
  { name: 'Health', description: 'Liveness and readiness, for probes and load balancers.' },
  { name: 'Assets', description: 'The assets the maker trades, from its config.' },
  { name: 'Pairs', description: 'The directed pairs the maker quotes, with spreads and size limits.' },
  {
    name: 'Prices',
    description: 'The reference prices quotes are made from (Pyth feeds), their age and status.',
  },
  { name: 'RFQ', description: 'Firm quotes: request one, look one up.' },
  {
    name: 'Settlement',
    description: 'Starting the atomic settlement of a quote through HTLC escrows.',
  },
  {
    name: 'Trades',
    description: 'A settlement in progress: the taker’s commands (lock, redeem, refund, …) and reads.',
  },
  {
    name: 'Runtime',
    description: 'The operator’s view of the running process: trades, runs, ledger, event log, machine.',
  },
  {
    name: 'Desk',
    description:
      'The operator’s control plane: pause and resume, spreads, size limits, lifetimes, hedging bands, ' +
      'sourcing and hedging on or off — live on every instance, durable and logged.',
  },
  { name: 'Dev', description: 'Embedded chain only: a faucet for demos and tests.' },
];

/** The OpenAPI document generated from the route schemas, its UI under /v1/docs and its JSON. */
async function registerOpenApi(app: TypeBoxApp, version: string) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'RFQ maker service',
        version,
        description:
          'Firm quotes for Solana token swaps, settled atomically through hash time-locked escrows. ' +
          'Interface version 0.1.3; extensions are marked in the field descriptions.',
      },
      // Relative: a client resolves it against the address it fetched this document from, which is right
      // behind a proxy or a port mapping and when HOST is 0.0.0.0, where the listen address is not.
      servers: [{ url: '/', description: 'this service, wherever the document was fetched from' }],
      tags: structuredClone(OPENAPI_TAGS),
      components: { securitySchemes: OPERATOR_SECURITY_SCHEMES },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/v1/docs', staticCSP: true });
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

/**
 * Bodies are validated strictly (no type coercion: "30" is not an integer); path and query parts are
 * coerced from their string form. allErrors so that `details` names every offending field.
 */
function installValidation(app: TypeBoxApp): void {
  const make = (coerceTypes: boolean) => {
    const ajv = new Ajv({
      allErrors: true,
      coerceTypes,
      useDefaults: true,
      removeAdditional: false,
      strict: false,
    });
    // ajv-formats is CommonJS with a default export; under NodeNext its callable sits on .default.
    (ajvFormats as unknown as { default: (ajv: Ajv) => void }).default(ajv);
    return ajv;
  };
  const bodyAjv = make(false);
  const partAjv = make(true);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyAjv : partAjv).compile(schema),
  );
  app.setSchemaErrorFormatter((errors, dataVar) => {
    const error = new ApiError(
      'validation_failed',
      undefined,
      errors.map((e) => describeValidationError(e, dataVar)),
    );
    return error;
  });
}

interface AjvLikeError {
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
  keyword?: string;
}

function describeValidationError(error: AjvLikeError, part: string): string {
  const path = (error.instancePath ?? '').split('/').filter(Boolean).join('.');
  let field = path ? `${part}.${path}` : part;
  if (error.keyword === 'required' && typeof error.params?.missingProperty === 'string') {
    field = `${field}.${error.params.missingProperty}`;
    return `${field}: is required`;
  }
  if (error.keyword === 'additionalProperties' && typeof error.params?.additionalProperty === 'string') {
    return `${field}.${error.params.additionalProperty}: is not allowed`;
  }
  return `${field}: ${error.message ?? 'is invalid'}`;
}

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'validation_failed',
};

function handleError(
  this: FastifyInstance,
  thrown: FastifyError | ApiError | RuntimeError,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const error =
    thrown instanceof RuntimeError
      ? fromRuntimeError(thrown)
      : isStorageFull(thrown)
        ? new ApiError('storage_full')
        : thrown;
  if (error instanceof ApiError) {
    if (error.code === 'rate_limited') reply.header('retry-after', '60');
    if (error.code === 'storage_full') reply.header('retry-after', String(STORAGE_FULL_RETRY_SECONDS));
    return reply.code(error.statusCode).send(envelope(error.code, error.message, error.details));
  }
  const mapped = error.code ? FASTIFY_CODES[error.code] : undefined;
  if (mapped) {
    const message =
      mapped === 'invalid_json' ? `${ERROR_CODES.invalid_json.message} ${error.message}` : undefined;
    return reply.code(ERROR_CODES[mapped].status).send(envelope(mapped, message));
  }
  if (error instanceof SyntaxError || (error as { type?: string }).type === 'entity.parse.failed') {
    return reply
      .code(400)
      .send(envelope('invalid_json', `${ERROR_CODES.invalid_json.message} ${error.message}`));
  }
  const status = (error as FastifyError).statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    // Any other client error Fastify raises (bad headers, bad URL encoding, …) is still the client's.
    const code: ErrorCode = status === 404 ? 'route_not_found' : 'validation_failed';
    return reply.code(ERROR_CODES[code].status).send(envelope(code, error.message));
  }
  request.log.error({ err: error }, 'unhandled error');
  return reply.code(500).send(envelope('internal_error'));
}
