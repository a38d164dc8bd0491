# make test runs everything CI runs: formatting, vet and staticcheck, Go tests with the race
# detector, and the Node end-to-end suite against the real clients.
.PHONY: docs docs-check e2e-venv vendor-check test fmt-check vet gotest benchsmoke e2e e2e-deps run build bench loadgen loadsmoke fuzz playground-vendor soak chaos

GO ?= go

test: fmt-check vet docs-check gotest benchsmoke loadsmoke e2e

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './e2e/*')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

# docs/configuration.md is generated from the config types' doc comments
# in adapter/config.go.
docs:
	$(GO) run ./internal/cmd/configdoc -o docs/configuration.md

# CI: the committed configuration reference is what the config types
# generate (part of make test).
docs-check:
	@$(GO) run ./internal/cmd/configdoc -o - | cmp -s - docs/configuration.md || { \
		echo "docs/configuration.md differs from what adapter/config.go generates:"; \
		echo "run: make docs, then commit docs/configuration.md"; exit 1; }

# staticcheck is fetched by version through the Go module proxy (not a
# dependency of the module).
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

vet:
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

gotest:
	$(GO) test -race -count=1 ./...

# npm ci only when the lockfile changed since the last install.
e2e/node_modules/.installed: e2e/package.json e2e/package-lock.json
	cd e2e && npm ci --no-audit --no-fund
	touch $@

e2e/copilotkit/node_modules/.installed: e2e/copilotkit/package.json e2e/copilotkit/package-lock.json
	cd e2e/copilotkit && npm ci --no-audit --no-fund
	touch $@

# The real CopilotRuntime 1.75 to compare with (its install scripts, the
# scarf analytics among them, are not run).
e2e/cpkruntime/node_modules/.installed: e2e/cpkruntime/package.json e2e/cpkruntime/package-lock.json
	cd e2e/cpkruntime && npm ci --no-audit --no-fund --ignore-scripts
	touch $@

# The Python peers of the e2e tests (langgraph dev, the official
# ag-ui-langgraph endpoint, the MCP App servers on the official MCP SDK and
# FastMCP): a virtualenv of exact pins, made again when the pins change.
e2e/.venv/requirements.txt: e2e/python/requirements.txt
	rm -rf e2e/.venv
	python3 -m venv e2e/.venv
	e2e/.venv/bin/pip install -q --disable-pip-version-check -r e2e/python/requirements.txt
	cp e2e/python/requirements.txt $@

e2e-venv: e2e/.venv/requirements.txt

e2e-deps: e2e/node_modules/.installed e2e/copilotkit/node_modules/.installed e2e/cpkruntime/node_modules/.installed e2e-venv

e2e: e2e-deps vendor-check
	cd e2e && npm test
	cd e2e/copilotkit && npm test
	cd e2e/cpkruntime && npm test

# The playground's A2UI renderer bundle and icon font, built from the
# pinned npm packages into adapter/playground/vendor (committed, embedded in
# the binary).
playground-vendor: e2e-deps
	node e2e/build-playground-vendor.mjs

# CI: the committed bundle is what the pinned packages build.
vendor-check: playground-vendor
	@test -z "$$(git status --porcelain -- adapter/playground/vendor)" || { \
		echo "adapter/playground/vendor differs from what the pinned npm packages build:"; \
		git status --short -- adapter/playground/vendor; \
		echo "run: make playground-vendor, then commit adapter/playground/vendor"; exit 1; }

# Runs the service with the built-in demo; the playground is at /. Needs
# only Go: the renderer bundle is embedded.
run:
	$(GO) run ./cmd/genui-adapter

# genui-adapter version prints VERSION (the nearest tag, if any) and COMMIT
# (with -modified when tracked files have changes), set with -ldflags -X;
# the image build (no .git in its context) gets both as build arguments.
VERSION ?= $(shell git describe --tags --dirty 2>/dev/null)
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)$(if $(shell git status --porcelain --untracked-files=no 2>/dev/null),-modified)
LDFLAGS = -X main.version=$(VERSION) -X main.commit=$(COMMIT)

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o bin/genui-adapter ./cmd/genui-adapter

.PHONY: docker
docker:
	docker build --build-arg VERSION=$(VERSION) --build-arg COMMIT=$(COMMIT) -t genui-adapter .

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Every benchmark twice in a row (part of make test): a benchmark that no longer
# runs fails here, not on the day someone measures with it.
benchsmoke:
	$(GO) test -run '^$$' -bench . -benchtime 2x ./...

# The load comparison (about 6 minutes): direct, a byte-copy pass-through
# and the adapter (memory and Redis run logs) under 1,000 x 20 ev/s and
# 10,000 x 1 ev/s, one stream, and A2UI validation.
loadgen:
	$(GO) run ./cmd/loadgen

# A few seconds of 200 streams through the adapter; fails on a lost event
# or an error (part of make test).
loadsmoke:
	$(GO) run ./cmd/loadgen -scenario smoke

# The fault test at an operator's scale (about 3 minutes; not part of make
# test, which runs a short version): three instances on Redis behind nginx,
# 300 runs of 24 s at 25 events/s per phase; kill -9, Redis paused and
# restarted, a rolling restart. Prints one "chaos {...}" line per phase
# (the table in docs/performance.md).
chaos: e2e-deps
	cd e2e && CHAOS_STREAMS=300 CHAOS_SECONDS=24 CHAOS_RATE=25 node --test chaos/

# The bounded soak (about 2 minutes; not part of make test): the real
# binary under a 60 s flood read by a slow client, 3 M small deltas and
# 5,000 short runs; RSS must stay under the configured budget and come back
# down after retention.
soak:
	$(GO) test -tags soak -run TestSoak -count=1 -v -timeout 6m ./cmd/genui-adapter/

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzDecode -fuzztime 60s ./agui/
	$(GO) test -run '^$$' -fuzz FuzzScanFramesChunking -fuzztime 30s ./agui/
	$(GO) test -run '^$$' -fuzz FuzzForwardedProp -fuzztime 30s ./agui/
	$(GO) test -run '^$$' -fuzz FuzzParseRunAgentInput -fuzztime 30s ./agui/
	$(GO) test -run '^$$' -fuzz FuzzPartialRender -fuzztime 30s ./a2ui/
	$(GO) test -run '^$$' -fuzz FuzzScanJSON -fuzztime 30s ./a2ui/
	$(GO) test -run '^$$' -fuzz FuzzDecodeDocument -fuzztime 30s -fuzzminimizetime 5s ./a2ui/
	$(GO) test -run '^$$' -fuzz FuzzV08Convert -fuzztime 30s -fuzzminimizetime 3s ./a2ui/
	$(GO) test -run '^$$' -fuzz FuzzDowngrade -fuzztime 30s -fuzzminimizetime 3s ./a2ui/
	$(GO) test -run '^$$' -fuzz FuzzArenas -fuzztime 30s -fuzzminimizetime 3s ./a2ui/
	$(GO) test -run '^$$' -fuzz FuzzFrame -fuzztime 30s ./agui/a2a/
	$(GO) test -run '^$$' -fuzz FuzzPartialValue -fuzztime 30s ./agui/langgraph/
	$(GO) test -run '^$$' -fuzz FuzzOf -fuzztime 30s ./agui/origin/
