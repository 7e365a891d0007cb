// `npm run machines:diagram`: writes the trade statechart as Mermaid into docs/trade-machine.md, generated
// from the machine itself; test/machines/diagram.test.ts fails when the committed file falls behind.
import { writeFileSync } from 'node:fs';
import { diagramDocument } from '../machines/trade.definition.ts';

const target = new URL('../docs/trade-machine.md', import.meta.url);
writeFileSync(target, diagramDocument());
console.log(`wrote ${target.pathname}`);
