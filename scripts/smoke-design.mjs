// Instantiates pkg-design/ through js/design.js and designs + verifies one mechanism.
import { design } from '../js/design.js';
import { parseMechanism } from '../js/privlift.js';

const json = await design('rr-lip', { prior: { labels: ['a', 'b', 'c'], p: [0.2, 0.3, 0.5] }, epsilon: 0.5 });
const mech = (await parseMechanism(json)).verify({});
if (!(mech.leakage().lip <= 0.5 * (1 + 1e-9))) throw new Error('design smoke: LIP above the budget');
console.log('design smoke ok');
