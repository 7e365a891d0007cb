// @rfq-maker/taker/node: everything of the browser entry, plus the file store (fsync'd) for Node processes.

export { FileSwapStore } from './file-store.ts';
export * from './index.ts';
