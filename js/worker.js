// The Worker of the designers (js/offthread.js starts it for 'privlift/design'): the
// curator module's long computations. They draw no randomness.

import initDesign, * as design from '../pkg-design/privlift_design.js';
import { serve } from './worker-serve.js';

serve({
  design: {
    init: initDesign,
    ops: {
      design: (progress, method, request) => json(design.design(method, request, progress)),
      designContinuous: (progress, request) => json(design.designContinuous(request, progress)),
      fitGmm: (progress, samples, max) => design.fitGmm(samples, max),
    },
  },
});

/** The document's JSON text; its wasm memory freed at once. */
function json(doc) {
  try {
    return doc.toJson();
  } finally {
    doc.free();
  }
}

