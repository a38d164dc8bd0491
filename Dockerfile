# Multi-stage build: a static binary on distroless, running as non-root.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/genui-adapter ./cmd/genui-adapter

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/genui-adapter /genui-adapter
USER nonroot:nonroot
EXPOSE 8080
ENV GENUI_LISTEN=0.0.0.0:8080
ENTRYPOINT ["/genui-adapter"]
