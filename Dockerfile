# Multi-stage build: a static binary on distroless, running as non-root.
# The binary is self-contained: the playground, its A2UI renderer bundle
# and icon font are embedded, so the image needs no Node.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# genui-adapter version prints them (.git is not in the context): make
# docker passes the nearest tag and the commit.
ARG VERSION=
ARG COMMIT=
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" -o /out/genui-adapter ./cmd/genui-adapter

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/genui-adapter /genui-adapter
USER nonroot:nonroot
# 8080: the API and the playground; 8081: the MCP Apps sandbox origin (a
# second origin; publish it under its own host name behind a proxy and set
# GENUI_SANDBOX_ORIGIN to its public URL).
EXPOSE 8080 8081
ENV GENUI_LISTEN=0.0.0.0:8080 \
    GENUI_SANDBOX_LISTEN=0.0.0.0:8081
# distroless has no shell: the binary checks itself.
HEALTHCHECK --interval=15s --timeout=5s --start-period=5s CMD ["/genui-adapter", "healthcheck"]
ENTRYPOINT ["/genui-adapter"]
