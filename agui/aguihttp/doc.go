// Package aguihttp is the HTTP client side of AG-UI: [Agent] runs an
// upstream AG-UI agent over HTTP (POST the RunAgentInput, decode the SSE
// answer with the agui codec), and [Upstream] holds the rules every
// HTTP backend shares (this package's Agent, and the LangGraph and A2A
// backends, which embed it): the server's URL, headers set and
// forwarded, the origin policy requests and redirects obey, the connect
// and idle timeouts, the event size cap, and how a server's error
// answer reaches the client ([StatusError]).
//
// Its transport ([NewTransport]) reads ahead while an upstream floods,
// so that the relay flushes its client only before reads that may wait.
package aguihttp
