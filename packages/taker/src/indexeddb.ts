// @rfq-maker/taker/indexeddb: the browser's durable SwapStore.
export { type IndexedDbStoreOptions, IndexedDbSwapStore } from './idb-store.ts';
