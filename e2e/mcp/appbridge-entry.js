// The official MCP Apps host side (@modelcontextprotocol/ext-apps
// AppBridge), for checking that our data view speaks the real protocol.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
window.__bridge = { calls: [], initialized: false, sizes: [] };
window.mountWithAppBridge = async (html, toolInput, toolResult) => {
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts allow-same-origin");
  iframe.style.cssText = "width:700px;height:400px;border:1px solid #ccc";
  // The View sends ui/initialize as soon as its script runs: the bridge
  // listens before the View's document is loaded (connecting after the
  // load event lost that request when the View was quick).
  document.body.appendChild(iframe);
  const bridge = new AppBridge(null, { name: "appbridge-test-host", version: "1.0.0" }, { serverTools: {}, openLinks: {} }, { hostContext: { theme: "light", platform: "web", displayMode: "inline" } });
  bridge.oninitialized = () => {
    window.__bridge.initialized = true;
    bridge.sendToolInput({ arguments: toolInput });
    bridge.sendToolResult(toolResult);
  };
  bridge.onsizechange = (s) => window.__bridge.sizes.push(s);
  bridge.oncalltool = async (params) => {
    window.__bridge.calls.push(params);
    return { content: [{ type: "text", text: "refreshed" }], structuredContent: { refreshed: true } };
  };
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = html;
  window.__bridge.iframe = iframe;
};
