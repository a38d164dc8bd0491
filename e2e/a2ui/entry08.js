// The official A2UI v0.8 renderer (@a2ui/lit 0.11.0's v0_8 entry point on
// @a2ui/web_core 0.11.0), exposed to the test page as window.renderA2UI08.
// The theme is the minimal one the v0.8 elements need (every class map
// empty); the structural styles are the renderer's own.
import { v0_8 } from "@a2ui/lit";
import * as UI from "@a2ui/lit/ui";
import { ContextProvider } from "@lit/context";

const none = {};
const triple = { container: none, element: none, label: none };
const theme = {
  components: {
    AudioPlayer: none, Button: none, Card: none, Column: none, CheckBox: triple, DateTimeInput: triple, Divider: none,
    Image: { all: none, icon: none, avatar: none, smallFeature: none, mediumFeature: none, largeFeature: none, header: none },
    Icon: none, List: none, Modal: { backdrop: none, element: none }, MultipleChoice: triple, Row: none, Slider: triple,
    Tabs: { container: none, element: none, controls: { all: none, selected: none } },
    Text: { all: none, h1: none, h2: none, h3: none, h4: none, h5: none, caption: none, body: none },
    TextField: triple, Video: none,
  },
  elements: Object.fromEntries(["a", "audio", "body", "button", "h1", "h2", "h3", "h4", "h5", "iframe", "input", "p", "pre", "textarea", "video"].map((k) => [k, none])),
  markdown: Object.fromEntries(["p", "h1", "h2", "h3", "h4", "h5", "ul", "ol", "li", "a", "strong", "em"].map((k) => [k, []])),
  additionalStyles: {},
};

window.__a2ui = { errors: [], actions: [] };
const host = document.getElementById("root");
const provider = new ContextProvider(host, { context: UI.Context.themeContext, initialValue: theme });
provider.hostConnected();
const style = document.createElement("style");
style.textContent = v0_8.Styles.structuralStyles;
document.head.appendChild(style);

const processor = v0_8.Data.createSignalA2uiMessageProcessor();
const shown = new Map();
window.renderA2UI08 = (msgs) => {
  for (const m of msgs) {
    try {
      processor.processMessages([m]);
    } catch (e) {
      window.__a2ui.errors.push(String(e?.message ?? e));
    }
  }
  for (const [id, surface] of processor.getSurfaces()) {
    let el = shown.get(id);
    if (!el) {
      el = document.createElement("a2ui-surface");
      el.addEventListener("a2uiaction", (e) => window.__a2ui.actions.push(e.detail));
      host.appendChild(el);
      shown.set(id, el);
    }
    el.surfaceId = id;
    el.processor = processor;
    el.surface = { ...surface };
  }
};
void UI.Surface;
