// The visualiser's layout of the real trade machine, checked as geometry: every state drawn once, inside
// its parent, apart from its siblings; every transition drawn exactly once (as an edge between boxes or a
// line inside the box it stays in); and the SVG names every state. The browser suite checks the page.
import { describe, expect, test } from 'vitest';
import { machineDefinition } from '../../machines/trade.definition.ts';
import {
  type Box,
  collapsiblePhases,
  labelObstacles,
  labelRect,
  layoutChart,
  type Rect,
  renderSvg,
} from '../../src/visualiser/index.ts';

const def = machineDefinition();
const layout = layoutChart(def);
const boxOf = new Map(layout.boxes.map((box) => [box.state.id, box]));

const inside = (child: Box, parent: Box) =>
  child.x >= parent.x &&
  child.y >= parent.y &&
  child.x + child.w <= parent.x + parent.w &&
  child.y + child.h <= parent.y + parent.h;
const overlap = (a: Rect, b: Rect) =>
  a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

describe('layoutChart of the trade machine', () => {
  test('every state has one box of positive size on the canvas', () => {
    const drawn = layout.boxes.map((box) => box.state.id);
    expect(new Set(drawn).size).toBe(drawn.length);
    // The root is the canvas itself; every other state is a box.
    const states = def.states.filter((s) => s.parent !== null).map((s) => s.id);
    expect(drawn.filter((id) => states.includes(id)).sort()).toEqual([...states].sort());
    for (const box of layout.boxes) {
      expect(box.w, box.state.id).toBeGreaterThan(0);
      expect(box.h, box.state.id).toBeGreaterThan(0);
      expect(box.x + box.w, box.state.id).toBeLessThanOrEqual(layout.width);
      expect(box.y + box.h, box.state.id).toBeLessThanOrEqual(layout.height);
    }
  });

  test('children sit inside their parent, and siblings never overlap', () => {
    for (const state of def.states) {
      const box = boxOf.get(state.id);
      if (!box) continue;
      const parent = state.parent === null ? undefined : boxOf.get(state.parent);
      if (parent) expect(inside(box, parent), `${state.id} in ${state.parent}`).toBe(true);
      const siblings = def.states.filter((s) => s.parent === state.parent && s.id !== state.id);
      for (const sibling of siblings) {
        const other = boxOf.get(sibling.id);
        if (other) expect(overlap(box, other), `${state.id} / ${sibling.id}`).toBe(false);
      }
    }
  });

  test('each transition is drawn exactly once, between the boxes it connects or inside the one it stays in', () => {
    const drawn = [
      ...layout.edges.flatMap((edge) => edge.labels.map((line) => line.transition)),
      ...layout.boxes.flatMap((box) => box.lines.map((line) => line.transition)),
    ].sort((a, b) => a - b);
    expect(drawn).toEqual(def.transitions.map((_, i) => i));
    for (const edge of layout.edges) {
      expect(boxOf.has(edge.source) || edge.source === def.id, edge.source).toBe(true);
      expect(boxOf.has(edge.target), edge.target).toBe(true);
      for (const line of edge.labels)
        expect(def.transitions[line.transition]?.targets).toContain(edge.target);
    }
  });

  test('the same definition always lays out the same way', () => {
    expect(layoutChart(machineDefinition())).toEqual(layout);
  });
});

describe('renderSvg', () => {
  const svg = renderSvg(def, layout);

  test('is one svg element of the layout’s size that names every state', () => {
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    // Coordinates are written to a tenth of a pixel.
    const tenth = (n: number) => Math.round(n * 10) / 10;
    expect(svg).toContain(`width="${tenth(layout.width)}" height="${tenth(layout.height)}"`);
    for (const box of layout.boxes) expect(svg).toContain(box.state.key);
  });

  test('is well-formed markup: every < opens a tag, every & is an entity, tags balance', () => {
    expect(svg).not.toMatch(/<(?![a-zA-Z/])/);
    expect(svg).not.toMatch(/&(?!(amp|lt|gt|quot|#39|#x27);)/);
    const opened = [...svg.matchAll(/<([a-zA-Z]+)\b[^>]*?(\/?)>/g)].filter((m) => m[2] !== '/').length;
    const closed = [...svg.matchAll(/<\/[a-zA-Z]+>/g)].length;
    expect(opened).toBe(closed);
  });
});

describe('labels and collapsed phases', () => {
  const phases = collapsiblePhases(def).map((s) => s.id);
  const subsets = Array.from({ length: 1 << phases.length }, (_, mask) =>
    phases.filter((_, i) => mask & (1 << i)),
  );

  test('the phases are initiated’s three: locking, redeeming, unwinding', () => {
    expect(phases).toEqual([
      'trade.initiated.locking',
      'trade.initiated.redeeming',
      'trade.initiated.unwinding',
    ]);
    expect(() => layoutChart(def, { collapsed: ['trade.initiated'] })).toThrow(/not a phase/);
  });

  test.each(subsets.map((collapsed) => [collapsed.join(', ') || 'none collapsed', collapsed] as const))(
    'no label over another label, a state box or a compound’s title, inside the chart (%s)',
    (_, collapsed) => {
      const drawn = layoutChart(def, { collapsed });
      const labels = drawn.edges.map(labelRect);
      const obstacles = labelObstacles(drawn);
      const clashes: string[] = [];
      labels.forEach((label, i) => {
        const edge = drawn.edges[i];
        labels.forEach((other, j) => {
          if (j > i && overlap(label, other)) clashes.push(`${edge?.source}→${edge?.target} / label ${j}`);
        });
        for (const o of obstacles)
          if (overlap(label, o)) clashes.push(`${edge?.source}→${edge?.target} / box`);
        expect(label.x >= 0 && label.y >= 0 && label.x + label.w <= drawn.width).toBe(true);
        expect(label.y + label.h).toBeLessThanOrEqual(drawn.height);
      });
      expect(clashes).toEqual([]);
    },
  );

  test.each(subsets.slice(1).map((collapsed) => [collapsed.join(', '), collapsed] as const))(
    'collapsed (%s): the phase is one box, its inner transitions left out, the crossing ones drawn once',
    (_, collapsed) => {
      const drawn = layoutChart(def, { collapsed });
      const ids = new Set(drawn.boxes.map((b) => b.state.id));
      const hiddenUnder = (id: string) => collapsed.find((phase) => id.startsWith(`${phase}.`));
      for (const phase of collapsed) {
        const box = drawn.boxes.find((b) => b.state.id === phase);
        expect(box?.hidden).toBe(def.states.filter((s) => s.id.startsWith(`${phase}.`)).length);
      }
      for (const s of def.states) expect(ids.has(s.id), s.id).toBe(hiddenUnder(s.id) === undefined);
      const shown = [
        ...drawn.edges.flatMap((edge) => edge.labels.map((line) => line.transition)),
        ...drawn.boxes.flatMap((box) => box.lines.map((line) => line.transition)),
      ].sort((a, b) => a - b);
      const expected = def.transitions.flatMap((t, i) => {
        const inside = hiddenUnder(t.source) ?? collapsed.find((p) => p === t.source);
        const within =
          inside !== undefined &&
          t.targets.every((target) => target.startsWith(`${inside}.`) || target === inside);
        return within && (hiddenUnder(t.source) !== undefined || t.targets.length > 0) ? [] : [i];
      });
      expect(shown).toEqual(expected);
      for (const edge of drawn.edges) {
        expect(ids.has(edge.target), edge.target).toBe(true);
        expect(ids.has(edge.source) || edge.source === def.id, edge.source).toBe(true);
      }
    },
  );
});
