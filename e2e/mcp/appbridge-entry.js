// The official MCP Apps host side (@modelcontextprotocol/ext-apps
// AppBridge), for checking that our data view speaks the real protocol.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
window.__bridge = { calls: [], initialized: false, sizes: [] };
window.mountWithAppBridge = async (html, toolInput, toolResult) => {
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts allow-same-origin");
  iframe.style.cssText = "width:700px;height:400px;border:1px solid #ccc";
  iframe.srcdoc = html;
  document.body.appendChild(iframe);
  await new Promise((r) => iframe.addEventListener("load", r, { once: true }));
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
  window.__bridge.iframe = iframe;
};
