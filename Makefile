# Modex: `make run` opens the workbench on the bundled chat project,
# `make test` runs every test. Both install what they need first: the Debian
# packages Fyne (cgo, OpenGL, X11) builds against, GTK 3 (the native file
# dialogs open it at run time; without it they fall back to Fyne's), the NATS
# server the campaign tests run (Debian's nats-server), python3 and node for
# the adapter kits' tests, and the Go modules.

GO   ?= go
BIN  := bin/modex
# A,B: either package will do (libgtk-3-0 is libgtk-3-0t64 on Debian 13 and
# Ubuntu 24.04, where apt-get install libgtk-3-0 chooses it); A is installed.
DEBS := xorg-dev libgl1-mesa-dev libgtk-3-0,libgtk-3-0t64 pkg-config nats-server python3-coverage
# The adapter kits' tests (adapters/python, adapters/ts) need python3 and
# node: deps installs Debian's python3 and nodejs when they are not on PATH,
# and TypeScript (for the typings' check) into adapters/ts/.tools with npm
# when npm is there; make test requires the first two (MODEX_REQUIRE_LANGS=1).
TSC  := adapters/ts/.tools/node_modules/.bin/tsc

.PHONY: run test deps build bench fuzz screenshots clean portable headless

deps:
	@missing=""; \
	for p in $(DEBS); do \
	  ok=""; for alt in $$(echo "$$p" | tr , ' '); do \
	    dpkg-query -W -f='$${Status}' $$alt 2>/dev/null | grep -q "install ok installed" && ok=1; \
	  done; \
	  [ -n "$$ok" ] || missing="$$missing $${p%%,*}"; \
	done; \
	command -v python3 >/dev/null 2>&1 || missing="$$missing python3"; \
	command -v node >/dev/null 2>&1 || missing="$$missing nodejs"; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q --no-install-recommends $$missing; \
	fi
	@if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 && [ ! -x $(TSC) ]; then \
	  echo "installing TypeScript into adapters/ts/.tools"; \
	  npm install --no-audit --no-fund --prefix adapters/ts/.tools typescript@5 || \
	    echo "warning: npm could not install TypeScript: the tsc check of adapters/ts/example.ts will be skipped"; \
	fi
	$(GO) mod download

# The non-GUI packages, and the command line without the workbench, build
# without cgo for every desktop OS Fyne targets.
portable:
	@for os in windows darwin linux; do \
	  echo "CGO_ENABLED=0 GOOS=$$os go build ./engine/... ./projects/... ./graph/... (and -tags headless ./app)"; \
	  CGO_ENABLED=0 GOOS=$$os $(GO) build ./engine/... ./projects/... ./graph/... || exit 1; \
	  CGO_ENABLED=0 GOOS=$$os $(GO) build -tags headless -o /dev/null ./app || exit 1; \
	done

# The command line alone (no workbench, no cgo): half the memory at start.
headless:
	CGO_ENABLED=0 $(GO) build -tags headless -o bin/modex-headless ./app

build: deps
	$(GO) build -o $(BIN) ./app

run: build
	./$(BIN) projects/chat/chat.toml

test: deps portable
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	./scripts/check-fuzz-targets.sh
	$(GO) run ./scripts/checksize
	$(GO) vet ./...
	MODEX_REQUIRE_LANGS=1 $(GO) test -count=1 -timeout 30m ./...
	MODEX_REQUIRE_LANGS=1 $(GO) test -count=1 -timeout 30m -race ./...

bench: deps
	$(GO) test -run XXX -bench . -benchtime 3x ./engine/... ./graph/
	./scripts/time-commands.sh

# Every fuzz target, FUZZTIME each (go test -fuzz takes one target at a time).
FUZZTIME ?= 30s
FUZZ := ./projects/conference/impl:FuzzDecodePDU ./engine/scenario:FuzzParseRegex ./engine/model:FuzzDecodeValue ./engine/explore:FuzzLoadModel ./engine/conform:FuzzParseTrace ./engine/conform:FuzzReadHistory ./engine/conform:FuzzFastJSON \
        ./engine/conform:FuzzReadSavedRun ./projects:FuzzParseProject ./projects:FuzzReadSuite \
        ./projects:FuzzPreserveLayout ./projects:FuzzParseCombine ./graph:FuzzPretty ./graph:FuzzAppendJSONString \
        ./campaign:FuzzExtractBundle ./campaign:FuzzParseTrust \
        ./internal/safetext:FuzzSafeText ./engine/codecov:FuzzReadGo ./engine/codecov:FuzzReadLCOV ./engine/codecov:FuzzReadCoveragePy \
        ./engine/diskq:FuzzParseSegment

fuzz: deps
	@for t in $(FUZZ); do \
	  pkg=$${t%%:*}; name=$${t##*:}; \
	  echo "fuzz $$name in $$pkg for $(FUZZTIME)"; \
	  $(GO) test -run XXX -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	done

clean:
	rm -rf bin
