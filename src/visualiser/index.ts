// The trade machine's visualiser: an HTML page (GET /v1/viz serves it) that draws the statechart as SVG laid
// out here (layout.ts, pure, no layout library), then highlights a trade's state, plays its event history and
// follows live trades in the browser (viz.js).
export {
  type Box,
  type BoxLine,
  collapsiblePhases,
  type Edge,
  type Layout,
  type LayoutOptions,
  labelObstacles,
  labelRect,
  layoutChart,
  type Rect,
  renderSvg,
} from './layout.ts';
export { type VizOptions, vizPage } from './page.ts';
