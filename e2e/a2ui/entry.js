// The official A2UI v0.9 renderer (@a2ui/lit 0.11.0 on @a2ui/web_core
// 0.11.0), exposed to the test page as window.renderA2UI.
import { MessageProcessor } from "@a2ui/web_core/v0_9";
import { A2uiSurface, basicCatalog } from "@a2ui/lit/v0_9";

window.__a2ui = { errors: [], actions: [] };
const processor = new MessageProcessor([basicCatalog], (a) => window.__a2ui.actions.push(a));
processor.onSurfaceCreated((s) => {
  const el = document.createElement("a2ui-surface");
  el.surface = s;
  document.getElementById("root").appendChild(el);
});
window.renderA2UI = (msgs) => {
  for (const m of msgs) {
    try {
      processor.processMessages([m]);
    } catch (e) {
      window.__a2ui.errors.push(String(e?.message ?? e));
    }
  }
};
window.__a2uiProcessor = processor;
void A2uiSurface;
