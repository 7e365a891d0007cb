// Lays out a statechart definition as nested boxes and labelled edges, and renders it as SVG. Pure and
// hand-rolled (no layout library): children of a compound state sit in rows by their rank along the
// compound's own transitions, so the chart reads top to bottom like the machine's config. A phase (a
// compound inside a compound, such as initiated.locking) can be laid out collapsed: one box, its inner
// transitions left out, the ones that cross its edge drawn to or from the phase itself. Edge labels are
// placed where they cover no state box, no compound's title and no other label.
import {
  type MachineDefinition,
  type StateDefinition,
  type TransitionDefinition,
  transitionLabel,
} from '../../machines/trade.definition.ts';

// Text is measured by character count: the page draws it in a monospace font of these sizes.
const CHAR_W = 7.3;
const LABEL_CHAR_W = 6.7;
const LINE_H = 16;
const HEADER = 26;
const PAD = 14;
/** Room on the left of a compound's content for the initial-state marker. */
const PAD_LEFT = 36;
const GAP_X = 56;
const GAP_Y = 78;
const MIN_W = 150;

export interface BoxLine {
  text: string;
  /** Index into the definition's transitions. */
  transition: number;
  event: string | null;
}

export interface Box {
  state: StateDefinition;
  x: number;
  y: number;
  w: number;
  h: number;
  /** Transitions that stay in this state (targetless, or re-entering it), drawn inside the box. */
  lines: BoxLine[];
  initial: boolean;
  /** How many states a collapsed phase hides (0: not collapsed). */
  hidden: number;
  /** The height of the box's title and text lines: a compound's children sit below it. */
  head: number;
}

export interface Edge {
  source: string;
  target: string;
  d: string;
  labelX: number;
  labelY: number;
  labels: BoxLine[];
}

export interface Layout {
  width: number;
  height: number;
  boxes: Box[];
  edges: Edge[];
}

export interface LayoutOptions {
  /** Full ids of the phases drawn collapsed (see collapsiblePhases). */
  collapsed?: readonly string[];
}

/** The phases a chart can collapse: compound states whose parent is a compound other than the root. */
export function collapsiblePhases(def: MachineDefinition): StateDefinition[] {
  const byId = new Map(def.states.map((s) => [s.id, s]));
  return def.states.filter((s) => {
    const parent = s.parent === null ? undefined : byId.get(s.parent);
    return s.children.length > 0 && parent !== undefined && parent.parent !== null;
  });
}

/** A transition as the chart draws it: its ends moved out of collapsed phases, its index in the definition. */
interface DrawnTransition {
  index: number;
  source: string;
  targets: string[];
  transition: TransitionDefinition;
}

/**
 * The states and transitions drawn with `collapsed` phases: a collapsed phase has no children; a transition
 * inside one is left out, and one that crosses its edge starts or ends at the phase.
 */
function collapse(
  def: MachineDefinition,
  collapsed: ReadonlySet<string>,
): { states: StateDefinition[]; transitions: DrawnTransition[]; hidden: Map<string, number> } {
  const byId = new Map(def.states.map((s) => [s.id, s]));
  /** The collapsed phase a state is drawn in (itself when none hides it). */
  const shown = (id: string): string => {
    let drawn = id;
    for (let s = byId.get(id)?.parent; s; s = byId.get(s)?.parent ?? null) if (collapsed.has(s)) drawn = s;
    return drawn;
  };
  const hidden = new Map<string, number>();
  const states: StateDefinition[] = [];
  for (const s of def.states) {
    if (shown(s.id) !== s.id) {
      const phase = shown(s.id);
      hidden.set(phase, (hidden.get(phase) ?? 0) + 1);
      continue;
    }
    states.push(collapsed.has(s.id) ? { ...s, children: [], initial: null } : s);
  }
  const transitions: DrawnTransition[] = [];
  def.transitions.forEach((t, index) => {
    const source = shown(t.source);
    const targets = t.targets.map(shown);
    const stays = t.targets.length === 0 || t.targets.every((target) => target === t.source);
    // Inside a collapsed phase: a reaction of a hidden state, or a move that stays within the phase.
    if (stays ? source !== t.source : targets.every((target) => target === source)) return;
    transitions.push({ index, source, targets: [...new Set(targets)], transition: t });
  });
  return { states, transitions, hidden };
}

interface Point {
  x: number;
  y: number;
}
type Side = 'top' | 'bottom' | 'left' | 'right';

/** Transitions between two distinct drawn states, the parallel ones sharing one edge with stacked labels. */
interface EdgeGroup {
  source: string;
  target: string;
  labels: BoxLine[];
}

interface Size {
  w: number;
  h: number;
  head: number;
}

/** What measuring the chart reads, and what it finds: each state's size and each child's offset in its parent. */
interface Measuring {
  drawn: ReturnType<typeof collapse>;
  byId: Map<string, StateDefinition>;
  lines: Map<string, BoxLine[]>;
  phases: Set<string>;
  sizes: Map<string, Size>;
  offsets: Map<string, Point>;
}

const MARGIN = 24;

export function layoutChart(def: MachineDefinition, options: LayoutOptions = {}): Layout {
  const collapsed = new Set(options.collapsed ?? []);
  for (const id of collapsed) {
    if (!collapsiblePhases(def).some((s) => s.id === id))
      throw new Error(`${id} is not a phase of ${def.id}`);
  }
  const drawn = collapse(def, collapsed);
  const byId = new Map(drawn.states.map((s) => [s.id, s]));
  const { lines, groups } = reactionsAndEdges(drawn.transitions);
  const measuring: Measuring = {
    drawn,
    byId,
    lines,
    phases: new Set(collapsiblePhases(def).map((s) => s.id)),
    sizes: new Map(),
    offsets: new Map(),
  };
  const root = byId.get(def.id) as StateDefinition;
  measure(measuring, root);
  const boxes: Box[] = [];
  placeBox(measuring, root, { x: MARGIN, y: MARGIN }, boxes);
  const boxOf = new Map(boxes.map((box) => [box.state.id, box]));
  const edges = routeEdges(groups, boxOf, byId);
  const rootBox = boxOf.get(def.id) as Box;
  return { width: rootBox.w + 2 * MARGIN, height: rootBox.h + 2 * MARGIN, boxes, edges };
}

/**
 * Splits the drawn transitions into the lines written inside the box they stay in (• targetless, ↻
 * re-entering) and the edges between boxes.
 */
function reactionsAndEdges(transitions: readonly DrawnTransition[]): {
  lines: Map<string, BoxLine[]>;
  groups: EdgeGroup[];
} {
  const lines = new Map<string, BoxLine[]>();
  const groups = new Map<string, EdgeGroup>();
  for (const { index, transition, source, targets } of transitions) {
    const line = { text: transitionLabel(transition), transition: index, event: transition.event };
    if (targets.length === 0 || (targets.length === 1 && targets[0] === source)) {
      const mark = targets.length === 0 ? '•' : '↻';
      lines.set(source, [...(lines.get(source) ?? []), { ...line, text: `${mark} ${line.text}` }]);
      continue;
    }
    for (const target of targets) {
      const key = `${source}→${target}`;
      const group = groups.get(key) ?? { source, target, labels: [] };
      group.labels.push(line);
      groups.set(key, group);
    }
  }
  return { lines, groups: [...groups.values()] };
}

/** The text lines under a state's title: what it invokes, its reactions, how many states it hides. */
const textLines = (m: Measuring, s: StateDefinition) => [
  ...(s.invoke.length > 0 ? [`⚙ ${s.invoke.map((i) => i.src).join(', ')}`] : []),
  ...(m.lines.get(s.id) ?? []).map((l) => l.text),
  ...(m.drawn.hidden.has(s.id) ? [hiddenLine(m.drawn.hidden.get(s.id) ?? 0)] : []),
];

/** A state's size: its text, and for a compound its children's rows below it. */
function measure(m: Measuring, s: StateDefinition): Size {
  const texts = textLines(m, s);
  const head = HEADER + texts.length * LINE_H;
  // A phase's title has its toggle at the right (phase-toggle).
  const titleChars = s.key.length + 2 + (m.phases.has(s.id) ? TOGGLE_CHARS : 0);
  const textW = Math.max(titleChars, ...texts.map((t) => t.length + 1)) * CHAR_W + 2 * PAD;
  const size =
    s.children.length === 0
      ? { w: Math.max(MIN_W, textW), h: head + 10, head }
      : measureCompound(m, s, head, textW);
  m.sizes.set(s.id, size);
  return size;
}

/** Lays a compound's children out in rows by rank, each row centred, and sizes the compound around them. */
function measureCompound(m: Measuring, s: StateDefinition, head: number, textW: number): Size {
  const children = s.children.map((id) => m.byId.get(id) as StateDefinition);
  const childSizes = new Map(children.map((c) => [c.id, measure(m, c)]));
  const rows = rankRows(s, children, m.drawn.transitions, m.byId);
  const rowW = rows.map(
    (row) => row.reduce((sum, c) => sum + (childSizes.get(c.id)?.w ?? 0), 0) + GAP_X * (row.length - 1),
  );
  const rowH = rows.map((row) => Math.max(...row.map((c) => childSizes.get(c.id)?.h ?? 0)));
  const contentW = Math.max(...rowW);
  let y = head + 16;
  rows.forEach((row, r) => {
    let x = PAD_LEFT + (contentW - (rowW[r] ?? 0)) / 2;
    for (const c of row) {
      m.offsets.set(c.id, { x, y });
      x += (childSizes.get(c.id)?.w ?? 0) + GAP_X;
    }
    y += (rowH[r] ?? 0) + GAP_Y;
  });
  const size = {
    w: Math.max(textW, contentW + PAD_LEFT + PAD + 20),
    h: y - GAP_Y + PAD + 8,
    head,
  };
  // Rows are centred in the compound, whichever is wider: its text or its content.
  const shift = (size.w - (contentW + PAD_LEFT + PAD + 20)) / 2;
  if (shift > 0) for (const c of children) m.offsets.set(c.id, shiftPoint(m.offsets.get(c.id), shift));
  return size;
}

/** Places a state's box at `origin`, then its children's at their offsets, parents before children. */
function placeBox(m: Measuring, s: StateDefinition, origin: Point, boxes: Box[]): void {
  const size = m.sizes.get(s.id) as Size;
  const parent = s.parent ? m.byId.get(s.parent) : undefined;
  boxes.push({
    state: s,
    x: origin.x,
    y: origin.y,
    w: size.w,
    h: size.h,
    lines: m.lines.get(s.id) ?? [],
    initial: parent?.initial === s.id,
    hidden: m.drawn.hidden.get(s.id) ?? 0,
    head: size.head,
  });
  for (const id of s.children) {
    const offset = m.offsets.get(id) as Point;
    placeBox(m, m.byId.get(id) as StateDefinition, { x: origin.x + offset.x, y: origin.y + offset.y }, boxes);
  }
}

/** Room for a phase's toggle ('▾ collapse' and a gap) beside its title. */
const TOGGLE_CHARS = 12;

const hiddenLine = (n: number) => `▸ ${n} states inside`;

/** Where an edge's label is drawn: its stacked lines, centred on (labelX, labelY). */
export function labelRect(edge: Pick<Edge, 'labelX' | 'labelY' | 'labels'>): Rect {
  const { width, height } = labelSize(edge.labels);
  return { x: edge.labelX - width / 2, y: edge.labelY - height / 2, w: width, h: height };
}

const labelSize = (labels: readonly BoxLine[]) => ({
  width: Math.max(...labels.map((l) => l.text.length)) * LABEL_CHAR_W + 8,
  height: labels.length * 14 + 4,
});

/** What a label may not cover: every box without children, and each compound's title and text lines. */
export function labelObstacles(layout: Pick<Layout, 'boxes'>): Rect[] {
  return layout.boxes
    .filter((b) => b.state.parent !== null)
    .map((b) => (b.state.children.length > 0 ? { x: b.x, y: b.y, w: b.w, h: b.head } : b));
}

const shiftPoint = (p: Point | undefined, dx: number): Point => ({ x: (p?.x ?? 0) + dx, y: p?.y ?? 0 });

/**
 * Ranks a compound's children by the longest path from its initial child along the transitions between
 * them (projected onto the children), ignoring edges that close a cycle; a child nothing inside leads to
 * sits just above its first successor.
 */
function rankRows(
  parent: StateDefinition,
  children: StateDefinition[],
  transitions: readonly Pick<TransitionDefinition, 'source' | 'targets'>[],
  byId: Map<string, StateDefinition>,
): StateDefinition[][] {
  const childOf = (id: string): string | null => {
    for (let s = byId.get(id); s; s = s.parent ? byId.get(s.parent) : undefined) {
      if (s.parent === parent.id) return s.id;
    }
    return null;
  };
  const out = new Map<string, Set<string>>(children.map((c) => [c.id, new Set()]));
  for (const t of transitions) {
    const from = childOf(t.source);
    for (const target of t.targets) {
      const to = childOf(target);
      if (from && to && from !== to) out.get(from)?.add(to);
    }
  }
  // Depth-first from the initial child, then the rest in document order: back edges are dropped.
  const order: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const forward = new Map<string, string[]>(children.map((c) => [c.id, []]));
  const visit = (id: string) => {
    state.set(id, 'open');
    for (const next of out.get(id) ?? []) {
      if (state.get(next) === 'open') continue;
      forward.get(id)?.push(next);
      if (!state.has(next)) visit(next);
    }
    state.set(id, 'done');
    order.unshift(id);
  };
  const starts = [parent.initial, ...children.map((c) => c.id)].filter((id): id is string => id !== null);
  for (const id of starts) if (!state.has(id)) visit(id);

  const rank = new Map<string, number>(children.map((c) => [c.id, 0]));
  const incoming = new Set<string>();
  for (const id of order) {
    for (const next of forward.get(id) ?? []) {
      incoming.add(next);
      rank.set(next, Math.max(rank.get(next) ?? 0, (rank.get(id) ?? 0) + 1));
    }
  }
  for (const c of children) {
    if (incoming.has(c.id) || c.id === parent.initial) continue;
    const successors = (forward.get(c.id) ?? []).map((id) => rank.get(id) ?? 0);
    if (successors.length > 0) rank.set(c.id, Math.max(0, Math.min(...successors) - 1));
  }
  const rows: StateDefinition[][] = [];
  for (const c of children) {
    const r = rank.get(c.id) ?? 0;
    while (rows.length <= r) rows.push([]);
    rows[r]?.push(c);
  }
  return rows.filter((row) => row.length > 0);
}

/** One end of an edge on a box's side; `point` is where on the side, once the side's ends are spread. */
interface End {
  box: Box;
  side: Side;
  other: Point;
  point?: Point;
}

interface PlannedEdge {
  g: EdgeGroup;
  from: End;
  to: End;
  /** A compound's edge to its own descendant. */
  descend: boolean;
}

/** The chart's boxes as edges see them: which states are related, and what an edge must not cross. */
class Routing {
  readonly boxes: Box[];
  constructor(
    readonly boxOf: Map<string, Box>,
    private readonly byId: Map<string, StateDefinition>,
  ) {
    this.boxes = [...boxOf.values()];
  }

  isAncestor(a: string, b: string): boolean {
    for (let s = this.byId.get(b)?.parent; s; s = this.byId.get(s)?.parent ?? undefined)
      if (s === a) return true;
    return false;
  }

  private related(box: Box, a: string, b: string): boolean {
    const id = box.state.id;
    return (
      id === a ||
      id === b ||
      this.isAncestor(id, a) ||
      this.isAncestor(id, b) ||
      this.isAncestor(a, id) ||
      this.isAncestor(b, id)
    );
  }

  /** The states an edge must not cross: all but its ends, their ancestors and their descendants. */
  obstaclesFor(g: { source: string; target: string }): Rect[] {
    return this.boxes
      .filter((box) => !this.related(box, g.source, g.target))
      .map((box) => (box.state.children.length > 0 ? { x: box.x, y: box.y, w: box.w, h: HEADER } : box));
  }
}

function routeEdges(
  groups: EdgeGroup[],
  boxOf: Map<string, Box>,
  byId: Map<string, StateDefinition>,
): Edge[] {
  const routing = new Routing(boxOf, byId);
  const ends: End[] = [];
  const planned = groups.map((g) => planEdge(routing, g, ends));
  spreadEnds(ends);
  const bounds = routing.boxes[0] as Rect;
  // Labels keep off every state box and every compound's title, and off each other, by a small margin.
  const placed: Rect[] = labelObstacles({ boxes: routing.boxes }).map((o) => grow(o, LABEL_MARGIN));
  return planned.map((edge) => drawEdge(routing, edge, bounds, placed));
}

/** Picks the sides an edge leaves and enters by; the ends whose place along a side is still open go to `ends`. */
function planEdge(routing: Routing, g: EdgeGroup, ends: End[]): PlannedEdge {
  const s = routing.boxOf.get(g.source) as Box;
  const t = routing.boxOf.get(g.target) as Box;
  const descend = routing.isAncestor(g.source, g.target);
  const sides: [Side, Side] = descend ? ['left', 'left'] : leastCrossingSides(s, t, routing.obstaclesFor(g));
  const from: End = { box: s, side: sides[0], other: centre(t) };
  const to: End = { box: t, side: sides[1], other: centre(s) };
  // A compound's edge to its own child runs down the compound's left gutter from under its title.
  if (descend) from.point = { x: s.x + 14, y: s.y + HEADER };
  else ends.push(from);
  ends.push(to);
  return { g, from, to, descend };
}

/** The ways round from s to t worth trying, by where t lies: below, above, to the right or to the left. */
function candidateSides(s: Box, t: Box): [Side, Side][] {
  const towards: Side = centre(t).x >= centre(s).x ? 'left' : 'right';
  if (t.y >= s.y + s.h - 1)
    return [
      ['bottom', 'top'],
      ['bottom', towards],
      ['right', 'right'],
      ['left', 'left'],
    ];
  if (t.y + t.h <= s.y + 1)
    return [
      ['right', 'right'],
      ['left', 'left'],
      ['top', 'bottom'],
    ];
  return t.x >= s.x + s.w
    ? [
        ['right', 'left'],
        ['bottom', 'bottom'],
        ['top', 'top'],
      ]
    : [
        ['left', 'right'],
        ['bottom', 'bottom'],
        ['top', 'top'],
      ];
}

/** The first way round that crosses the fewest other states. */
function leastCrossingSides(s: Box, t: Box, obstacles: readonly Rect[]): [Side, Side] {
  let sides: [Side, Side] = ['left', 'left'];
  let best = Number.POSITIVE_INFINITY;
  for (const pair of candidateSides(s, t)) {
    const a = sideCentre(s, pair[0]);
    const b = sideCentre(t, pair[1]);
    const [c1, c2] = controls(a, pair[0], b, pair[1], obstacles);
    const cost = crossings(a, c1, c2, b, obstacles);
    if (cost < best) {
      best = cost;
      sides = pair;
    }
  }
  return sides;
}

/** Endpoints on one side of a box are spread along it, ordered by where their other end lies. */
function spreadEnds(ends: End[]): void {
  const bySide = new Map<string, End[]>();
  for (const end of ends) {
    const key = `${end.box.state.id}:${end.side}`;
    bySide.set(key, [...(bySide.get(key) ?? []), end]);
  }
  for (const list of bySide.values()) {
    const horizontal = list[0]?.side === 'top' || list[0]?.side === 'bottom';
    list.sort((a, b) => (horizontal ? a.other.x - b.other.x : a.other.y - b.other.y));
    list.forEach((end, i) => {
      const f = (i + 1) / (list.length + 1);
      const { x, y, w, h } = end.box;
      end.point =
        end.side === 'top'
          ? { x: x + w * f, y }
          : end.side === 'bottom'
            ? { x: x + w * f, y: y + h }
            : end.side === 'left'
              ? { x, y: y + h * f }
              : { x: x + w, y: y + h * f };
    });
  }
}

/** The edge's curve, and its label placed where it covers nothing already `placed` (which it then joins). */
function drawEdge(
  routing: Routing,
  { g, from, to, descend }: PlannedEdge,
  bounds: Rect,
  placed: Rect[],
): Edge {
  const p0 = from.point as Point;
  const p3 = to.point as Point;
  const [p1, p2] = descend
    ? [
        { x: p0.x, y: p3.y },
        { x: p3.x - 30, y: p3.y },
      ]
    : controls(p0, from.side, p3, to.side, routing.obstaclesFor(g));
  const { width, height } = labelSize(g.labels);
  // Labels stay inside the chart.
  const inside = (at: Point) => ({
    x: Math.min(Math.max(at.x, bounds.x + width / 2 + 4), bounds.x + bounds.w - width / 2 - 4),
    y: Math.min(Math.max(at.y, bounds.y + height / 2 + 4), bounds.y + bounds.h - height / 2 - 4),
  });
  const free = (at: Point) => {
    const rect = { x: at.x - width / 2, y: at.y - height / 2, w: width, h: height };
    return !placed.some((other) => overlaps(rect, other));
  };
  // The label goes where along the curve it covers no state and no other label; else just beside the
  // curve; else at the nearest free spot around the curve's middle (there is always one: the chart's
  // margins hold none).
  const label = labelSpot(p0, p1, p2, p3, width, height, inside, free);
  placed.push(grow({ x: label.x - width / 2, y: label.y - height / 2, w: width, h: height }, LABEL_MARGIN));
  return {
    source: g.source,
    target: g.target,
    d: `M${r(p0.x)},${r(p0.y)} C${r(p1.x)},${r(p1.y)} ${r(p2.x)},${r(p2.y)} ${r(p3.x)},${r(p3.y)}`,
    labelX: r(label.x),
    labelY: r(label.y),
    labels: g.labels,
  };
}

/** Room kept between a label and what it must not cover. */
const LABEL_MARGIN = 2;

const grow = (r: Rect, by: number): Rect => ({ x: r.x - by, y: r.y - by, w: r.w + 2 * by, h: r.h + 2 * by });

function labelSpot(
  p0: Point,
  p1: Point,
  p2: Point,
  p3: Point,
  width: number,
  height: number,
  inside: (at: Point) => Point,
  free: (at: Point) => boolean,
): Point {
  const along = [0.5, 0.4, 0.6, 0.3, 0.7, 0.22, 0.78, 0.15, 0.85];
  for (const t of along) {
    const at = inside(bezier(p0, p1, p2, p3, t));
    if (free(at)) return at;
  }
  for (const step of [1, 2, 3]) {
    for (const t of along) {
      const on = bezier(p0, p1, p2, p3, t);
      for (const [dx, dy] of [
        [0, -1],
        [0, 1],
        [1, 0],
        [-1, 0],
      ] as const) {
        const at = inside({ x: on.x + dx * step * (width / 2 + 6), y: on.y + dy * step * (height + 4) });
        if (free(at)) return at;
      }
    }
  }
  const middle = bezier(p0, p1, p2, p3, 0.5);
  for (let radius = 8; radius < 4000; radius += 8) {
    for (let k = 0; k < 32; k++) {
      const angle = (k / 32) * 2 * Math.PI;
      const at = inside({ x: middle.x + radius * Math.cos(angle), y: middle.y + radius * Math.sin(angle) });
      if (free(at)) return at;
    }
  }
  return inside(middle);
}

const sideCentre = (b: Box, side: Side): Point =>
  side === 'top'
    ? { x: b.x + b.w / 2, y: b.y }
    : side === 'bottom'
      ? { x: b.x + b.w / 2, y: b.y + b.h }
      : side === 'left'
        ? { x: b.x, y: b.y + b.h / 2 }
        : { x: b.x + b.w, y: b.y + b.h / 2 };

/** Bezier control points: straight out of each side, or out past every obstacle and back for same-side ends. */
function controls(p0: Point, s0: Side, p3: Point, s3: Side, obstacles: readonly Rect[]): [Point, Point] {
  if (s0 === s3 && (s0 === 'left' || s0 === 'right')) {
    const dir = s0 === 'right' ? 1 : -1;
    let out = dir > 0 ? Math.max(p0.x, p3.x) + 36 : Math.min(p0.x, p3.x) - 36;
    const top = Math.min(p0.y, p3.y);
    const bottom = Math.max(p0.y, p3.y);
    for (const box of [...obstacles].sort((a, b) => dir * (a.x - b.x))) {
      const inBand = box.y < bottom && box.y + box.h > top;
      const crosses =
        dir > 0
          ? box.x < out && box.x + box.w > Math.max(p0.x, p3.x)
          : box.x + box.w > out && box.x < Math.min(p0.x, p3.x);
      if (inBand && crosses) out = dir > 0 ? Math.max(out, box.x + box.w + 24) : Math.min(out, box.x - 24);
    }
    // Control points 4/3 of the way out put the curve's far point on `out`.
    return [
      { x: p0.x + ((out - p0.x) * 4) / 3, y: p0.y },
      { x: p3.x + ((out - p3.x) * 4) / 3, y: p3.y },
    ];
  }
  const reach = Math.max(36, Math.hypot(p3.x - p0.x, p3.y - p0.y) / 3);
  return [push(p0, s0, reach), push(p3, s3, reach)];
}

/** How many obstacles the curve passes through (sampled). */
function crossings(p0: Point, p1: Point, p2: Point, p3: Point, obstacles: readonly Rect[]): number {
  const hit = new Set<Rect>();
  for (let i = 1; i < 32; i++) {
    const at = bezier(p0, p1, p2, p3, i / 32);
    for (const box of obstacles) {
      if (at.x > box.x + 2 && at.x < box.x + box.w - 2 && at.y > box.y + 2 && at.y < box.y + box.h - 2)
        hit.add(box);
    }
  }
  return hit.size;
}

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

const overlaps = (a: Rect, b: Rect) =>
  a.x < b.x + b.w && a.x + a.w > b.x && a.y < b.y + b.h && a.y + a.h > b.y;

function bezier(p0: Point, p1: Point, p2: Point, p3: Point, t: number): Point {
  const u = 1 - t;
  const at = (a: number, b: number, c: number, d: number) =>
    u * u * u * a + 3 * u * u * t * b + 3 * u * t * t * c + t * t * t * d;
  return { x: at(p0.x, p1.x, p2.x, p3.x), y: at(p0.y, p1.y, p2.y, p3.y) };
}

const centre = (b: Box): Point => ({ x: b.x + b.w / 2, y: b.y + b.h / 2 });
const r = (n: number) => Math.round(n * 10) / 10;

function push(p: Point, side: Side, by: number): Point {
  switch (side) {
    case 'top':
      return { x: p.x, y: p.y - by };
    case 'bottom':
      return { x: p.x, y: p.y + by };
    case 'left':
      return { x: p.x - by, y: p.y };
    case 'right':
      return { x: p.x + by, y: p.y };
  }
}

// ── SVG ─────────────────────────────────────────────────────────────────────────────────────────

const esc = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/**
 * The chart as SVG. Every state is a `g.state[data-state=<path>]` and every transition label a
 * `[data-transition=<index>]`, which is what the page's script highlights.
 */
export function renderSvg(def: MachineDefinition, layout: Layout = layoutChart(def)): string {
  const phases = new Set(collapsiblePhases(def).map((s) => s.id));
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" id="chart" viewBox="0 0 ${r(layout.width)} ${r(layout.height)}" ` +
      `width="${r(layout.width)}" height="${r(layout.height)}" role="img" aria-label="The ${esc(def.id)} statechart">`,
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" ' +
      'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>',
    '<g class="states">',
  ];
  for (const box of layout.boxes) out.push(...renderState(def, box, phases.has(box.state.id)));
  out.push('</g>');
  out.push(...renderEdges(def, layout.edges));
  out.push('</svg>');
  return out.join('\n');
}

/** A state's group: its box, its title (and a phase's toggle), its text lines, its initial marker. */
function renderState(def: MachineDefinition, box: Box, isPhase: boolean): string[] {
  const s = box.state;
  const kind =
    s.id === def.id ? 'root' : box.hidden > 0 ? 'collapsed' : s.children.length > 0 ? 'compound' : s.type;
  const phase = isPhase ? ` data-phase="true" data-collapsed="${box.hidden > 0}"` : '';
  const out = [
    `<g class="state state-${kind}" data-state="${esc(s.path)}" data-type="${s.type}" data-tags="${esc(s.tags.join(' '))}"${phase}>`,
    `<title>${esc(s.path || s.id)}${s.description ? ` — ${esc(s.description)}` : ''}</title>`,
    `<rect class="state-box" x="${r(box.x)}" y="${r(box.y)}" width="${r(box.w)}" height="${r(box.h)}" rx="9"/>`,
  ];
  if (s.type === 'final') {
    out.push(
      `<rect class="state-final-ring" x="${r(box.x + 4)}" y="${r(box.y + 4)}" width="${r(box.w - 8)}" height="${r(box.h - 8)}" rx="6"/>`,
    );
  }
  const y = box.y + 18;
  out.push(`<text class="state-name" x="${r(box.x + PAD)}" y="${r(y)}">${esc(s.key)}</text>`);
  if (isPhase) {
    // The phase's toggle, at the right of its title: a button for the page's script.
    out.push(
      `<text class="phase-toggle" role="button" tabindex="0" x="${r(box.x + box.w - PAD)}" y="${r(y)}" ` +
        `text-anchor="end">${box.hidden > 0 ? '▸ expand' : '▾ collapse'}</text>`,
    );
  }
  out.push(...renderStateText(box, y));
  if (box.initial) {
    const cy = box.y + Math.min(box.h / 2, 22);
    out.push(
      `<g class="initial"><circle cx="${r(box.x - 24)}" cy="${r(cy)}" r="5"/>` +
        `<path d="M${r(box.x - 19)},${r(cy)} L${r(box.x - 1)},${r(cy)}" marker-end="url(#arrow)"/></g>`,
    );
  }
  out.push('</g>');
  return out;
}

/** The lines under a state's title (at `y`): what it invokes, its reactions, how many states it hides. */
function renderStateText(box: Box, y: number): string[] {
  const s = box.state;
  const out: string[] = [];
  if (s.invoke.length > 0) {
    y += LINE_H;
    const srcs = s.invoke.map((i) => i.src).join(', ');
    out.push(`<text class="state-invoke" x="${r(box.x + PAD)}" y="${r(y)}">⚙ ${esc(srcs)}</text>`);
  }
  for (const line of box.lines) {
    y += LINE_H;
    out.push(
      `<text class="state-reaction" x="${r(box.x + PAD)}" y="${r(y)}" data-transition="${line.transition}" ` +
        `data-event="${esc(line.event ?? '')}">${esc(line.text)}</text>`,
    );
  }
  if (box.hidden > 0) {
    y += LINE_H;
    out.push(
      `<text class="state-hidden" x="${r(box.x + PAD)}" y="${r(y)}">${esc(hiddenLine(box.hidden))}</text>`,
    );
  }
  return out;
}

/** Lines first, then every label above all lines, so that no line crosses a label. */
function renderEdges(def: MachineDefinition, edges: readonly Edge[]): string[] {
  const pathOf = (id: string) => (id === def.id ? '' : id.slice(def.id.length + 1));
  const ids = (edge: Edge) => edge.labels.map((l) => l.transition).join(' ');
  const out = ['<g class="edges">'];
  for (const edge of edges) {
    out.push(
      `<path class="edge" data-source="${esc(pathOf(edge.source))}" data-target="${esc(pathOf(edge.target))}" ` +
        `data-transitions="${ids(edge)}" d="${edge.d}" marker-end="url(#arrow)"/>`,
    );
  }
  out.push('</g>', '<g class="edge-labels">');
  for (const edge of edges) {
    const { w: width, h: height, y: top } = labelRect(edge);
    out.push(`<g class="edge-label-group" data-transitions="${ids(edge)}">`);
    out.push(
      `<rect class="edge-label-bg" x="${r(edge.labelX - width / 2)}" y="${r(top)}" width="${r(width)}" height="${r(height)}" rx="3"/>`,
    );
    edge.labels.forEach((label, i) => {
      out.push(
        `<text class="edge-label" x="${r(edge.labelX)}" y="${r(top + 13 + i * 14)}" text-anchor="middle" ` +
          `data-transition="${label.transition}" data-event="${esc(label.event ?? '')}">${esc(label.text)}</text>`,
      );
    });
    out.push('</g>');
  }
  out.push('</g>');
  return out;
}
