// The campaign's report as text: per store, what was run (swaps by kind and how each ended, kills,
// outages, warps, the faults injected, what the takers' clients met) and every problem with its trade,
// what the chain shows and what the service shows.
import type { Plan } from './plan.ts';
import type { StoreReport } from './run.ts';

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

export function formatReport(
  plan: Plan,
  stores: StoreReport[],
  failures: { store: string; error: string }[],
  wallMs: number,
) {
  const lines: string[] = [];
  const out = (line = '') => lines.push(line);
  out(
    `Campaign ${plan.profile}, seed ${plan.seed}: ${stores.length + failures.length} store(s), ${seconds(wallMs)} wall`,
  );
  for (const s of stores) {
    out();
    out(`── ${s.store} (${s.instances} instance${s.instances > 1 ? 's' : ''}) ${'─'.repeat(50)}`);
    out(
      `phases: active ${seconds(s.phases.activeMs)}, drain ${seconds(s.phases.drainMs)}, settle ${seconds(s.phases.settleMs)}, audit ${seconds(s.phases.auditMs)}`,
    );
    const byKind = new Map<string, number>();
    for (const t of s.takers) byKind.set(t.kind, (byKind.get(t.kind) ?? 0) + 1);
    out(
      `swaps: ${s.takers.length} takers (${[...byKind].map(([k, n]) => `${k} ${n}`).join(', ')}), ${s.records.length} trades started, ${s.audit.trades} trades audited (${s.audit.unregistered} the takers never heard of)`,
    );
    const ended = new Map<string, number>();
    for (const t of s.takers) ended.set(t.ended, (ended.get(t.ended) ?? 0) + 1);
    out(`takers' scripts ended: ${[...ended].map(([k, n]) => `${k} ${n}`).join(', ')}`);
    out('endings by kind (status/substate ×count):');
    for (const [kind, table] of Object.entries(s.audit.endings)) {
      out(
        `  ${kind.padEnd(20)} ${Object.entries(table)
          .map(([k, n]) => `${k} ×${n}`)
          .join(', ')}`,
      );
    }
    const during = s.chaos.kills.filter((k) => k.duringOutage).length;
    out(
      `kills: ${s.chaos.kills.length} (${during} during an outage): ${s.chaos.kills
        .map(
          (k) =>
            `${k.instance}${k.duringOutage ? ' [outage]' : ''} back in ${k.restartedAt ? seconds(k.restartedAt - k.at) : '—'}`,
        )
        .join('; ')}`,
    );
    const rel = (at: number) =>
      `${at >= s.startedAt ? '+' : '−'}${Math.round(Math.abs(at - s.startedAt) / 1000)}`;
    const timeline = s.events.filter((e) => e.what !== 'warp');
    out(
      `timeline (s from the active phase's start): ${timeline.map((e) => `${rel(e.at)} ${e.what} ${e.detail}`).join('; ')}`,
    );
    out(
      `outages: ${s.faults.outages.map((o) => `${o.mode} ${o.endedAt ? seconds(Date.parse(o.endedAt) - Date.parse(o.startedAt)) : 'unended'} (${o.source})`).join(', ') || 'none'}`,
    );
    out(
      `clock: ${s.clock.warps} warps, ${s.clock.warpedSeconds} s in all; held by fresh obligations on ${s.clock.heldTicks} ticks; ${s.clock.overdue.length} obligation(s) outlasted their patience${
        s.clock.overdue.length
          ? `: ${s.clock.overdue.map((o) => `${o.tradeId.slice(0, 8)} ${o.what} (${seconds(o.openMs)} open with the service up)`).join(', ')}`
          : ''
      }${s.clock.heldBy.length ? `; last held by ${s.clock.heldBy.join(', ')}` : ''}`,
    );
    out(
      `faults injected: ${Object.entries(s.faults.totals)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ')} over ${s.faults.requests} requests`,
    );
    const drops = s.faults.faults.dropped_send;
    if (drops) out(`  dropped sends by method: ${JSON.stringify(drops)}`);
    out(
      `takers' HTTP: ${s.http.requests} requests, ${s.http.unanswered} unanswered, ${s.http.unavailable} × 503, ${s.http.rateLimited} × 429`,
    );
    const rejections = s.takers.flatMap((t) => t.rfqRejections.flatMap((r) => r.reasons));
    if (rejections.length > 0) {
      const counts = new Map<string, number>();
      for (const r of rejections) counts.set(r.check, (counts.get(r.check) ?? 0) + 1);
      out(`RFQ refusals: ${[...counts].map(([k, n]) => `${k} ×${n}`).join(', ')}`);
    }
    const gaveUp = s.takers.filter((t) => t.ended === 'gave_up' || t.ended === 'error');
    for (const t of gaveUp) out(`  taker ${t.taker} (${t.kind}) ${t.ended}: ${t.detail.split('\n')[0]}`);
    out(`problems: ${s.audit.problems.length}`);
    const byCheck = new Map<string, number>();
    for (const p of s.audit.problems) byCheck.set(p.check, (byCheck.get(p.check) ?? 0) + 1);
    if (byCheck.size > 0) out(`  by check: ${[...byCheck].map(([k, n]) => `${k} ×${n}`).join(', ')}`);
    // One block per trade: what the chain and the service show, then each check it failed.
    const byTrade = new Map<string, typeof s.audit.problems>();
    for (const p of s.audit.problems) {
      const key = p.tradeId ?? '';
      byTrade.set(key, [...(byTrade.get(key) ?? []), p]);
    }
    for (const [tradeId, problems] of byTrade) {
      const first = problems[0];
      if (!first) continue;
      if (tradeId) {
        out(`  trade ${tradeId} (${first.kind ?? 'no taker of ours'})`);
        out(`      chain:   ${first.chain}`);
        out(`      service: ${first.service}`);
        if (first.history) out(`      history: ${first.history}`);
        if (first.taker) out(`      taker:   ${first.taker}`);
        if (first.log) out(`      log:     ${first.log}`);
        for (const p of problems) out(`      - [${p.check}] ${p.detail}`);
      } else {
        for (const p of problems) {
          out(`  [${p.check}]${p.kind ? ` (${p.kind} taker)` : ''} ${p.detail}`);
          if (p.chain) out(`      chain:   ${p.chain}`);
          if (p.service) out(`      service: ${p.service}`);
        }
      }
    }
    if (s.kept) out(`kept: ${s.kept} (instance logs, config, the chain's data)`);
  }
  for (const f of failures) {
    out();
    out(`── ${f.store}: the campaign itself failed`);
    out(`  ${f.error}`);
  }
  const total = stores.reduce((n, s) => n + s.audit.problems.length, 0);
  out();
  out(
    `TOTAL: ${total} problem(s) over ${stores.reduce((n, s) => n + s.records.length, 0)} trades and ${stores.reduce((n, s) => n + s.chaos.kills.length, 0)} kills${failures.length ? `; ${failures.length} store(s) did not run to the end` : ''}`,
  );
  return lines.join('\n');
}
