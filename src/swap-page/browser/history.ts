// "My trades": this browser's swaps from IndexedDB, each with what it allows; after a reload every unfinished
// one is read again from the service.
import { FINAL_STATUSES, type SwapRecord } from '@rfq-maker/taker';
import { type Command, client, state } from './context.ts';
import { $, amount, show } from './dom.ts';
import { actions } from './render.ts';

const ACTION_LABELS: Record<Command, string> = {
  resume: 'Resume',
  abandon: 'Abandon',
  redeem: 'Redeem',
  'redeem-wallet': 'Redeem from the wallet',
  refund: 'Refund',
  forget: 'Forget',
};

/** What a row's buttons do: the swap part's commands (swap.ts), handed in so that the list stays a view. */
export interface RowActions {
  command(record: SwapRecord, name: Command): Promise<void>;
  activate(record: SwapRecord): void;
}

export async function renderHistory(on: RowActions): Promise<void> {
  const records = await client.swaps();
  show($('no-trades'), records.length === 0);
  $('my-trades').replaceChildren(
    ...records.map((record) => {
      const li = document.createElement('li');
      li.dataset.secretHash = record.secretHash;
      li.dataset.tradeId = record.tradeId ?? '';
      li.dataset.status = record.status ?? 'not started';
      const title = document.createElement('div');
      const status = document.createElement('span');
      status.className = 'status';
      status.textContent = record.status ?? 'not started';
      title.append(
        status,
        ` · ${amount(record.input)} → ${amount(record.output)} · ${new Date(record.createdAt).toLocaleString()}`,
      );
      const detail = document.createElement('div');
      detail.className = 'meta';
      detail.textContent = `${record.wallet.name} · ${record.substate ?? 'settlement not started'}${
        record.tradeId ? ` · trade ${record.tradeId}` : ''
      }`;
      const row = document.createElement('div');
      row.className = 'row';
      for (const action of actions(record)) {
        const b = document.createElement('button');
        b.type = 'button';
        b.dataset.action = action;
        b.textContent = ACTION_LABELS[action];
        b.setAttribute(
          'aria-label',
          `${ACTION_LABELS[action]} the swap of ${amount(record.input)} for ${amount(record.output)}`,
        );
        b.addEventListener('click', () => void on.command(record, action));
        row.append(b);
      }
      if (state.active?.secretHash !== record.secretHash) {
        const open = document.createElement('button');
        open.type = 'button';
        open.dataset.action = 'show';
        open.textContent = 'Show';
        open.setAttribute(
          'aria-label',
          `Show the swap of ${amount(record.input)} for ${amount(record.output)}`,
        );
        open.addEventListener('click', () => on.activate(record));
        row.append(open);
      }
      li.append(title, detail, row);
      return li;
    }),
  );
}

/** After a reload: every unfinished swap of this browser read again from the service. */
export async function refreshHistory(): Promise<SwapRecord | null> {
  const records = await client.swaps();
  let newestOpen: SwapRecord | null = null;
  for (const record of records) {
    const open =
      record.status === null || !FINAL_STATUSES.includes(record.status) || record.trade?.next_action;
    if (!open) continue;
    newestOpen ??= record;
    if (!record.tradeId) continue;
    // Shown as last known when the service cannot be read (it may be restarting).
    await client.refresh(record).catch(() => {});
  }
  return newestOpen;
}
