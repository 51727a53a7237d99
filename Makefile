# slosh: `make run` opens the sandbox, `make test` runs every check (starting Xvfb when there is no display).

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.ONESHELL:
.DEFAULT_GOAL := build

GO ?= go
# Go's SIMD package (simd/archsimd: the neighbour search and pbf-cpu's pair passes on AVX-512) is an experiment in
# Go 1.26 and exists only under GOEXPERIMENT=simd. Built without it (a plain `go build`), the same code runs one
# particle at a time and gives the same floats.
export GOEXPERIMENT ?= simd
BIN := slosh
# Flags for `make run`, e.g. make run ARGS='--scene obstacles --mode pbf-cpu'.
ARGS ?=
TESTFLAGS ?= -p 2 -timeout 20m
BENCH_OUT ?= captures/bench
# How long `make fuzz` runs each fuzz target, and flags for it (e.g. add -parallel 1 on a shared machine). Each
# input that finds new coverage is minimised for at most -fuzzminimizetime (Go's default, 60 s, would take most
# of a minute's run for the slower readers).
FUZZTIME ?= 1m
FUZZFLAGS ?= -fuzzminimizetime 10s

# What building (GLFW's X11 headers, OpenGL) and testing (a virtual display, video tools, OpenVDB's reader) need on
# Debian/Ubuntu.
APT_PACKAGES := libx11-dev libxrandr-dev libxinerama-dev libxcursor-dev libxi-dev libxxf86vm-dev \
	libgl1-mesa-dev xvfb ffmpeg python3-openvdb

.PHONY: deps build run test bench peers fuzz interop clean

# apt_install installs the Debian packages named in $(1) that are missing, and only those, so that it is quiet and
# fast when everything is there.
define apt_install
	missing=""
	if command -v dpkg-query >/dev/null 2>&1; then
		for p in $(1); do
			dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"
		done
	else
		echo "make $@: no dpkg here; install the equivalents of:$(foreach p,$(1), $(p))" >&2
	fi
	if [ -n "$$missing" ]; then
		sudo=""
		if [ "$$(id -u)" -ne 0 ]; then sudo="sudo"; fi
		echo "make $@: installing$$missing"
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing
	fi
endef

deps:
	@$(call apt_install,$(APT_PACKAGES))
	$(GO) mod download

build:
	$(GO) build -o $(BIN) .

run: deps build
	./$(BIN) $(ARGS)

# test starts a private Xvfb when DISPLAY is empty, on the first free display from :99, with its output in a log
# file (an Xvfb holding the terminal's output open would hang CI), and stops it on every exit path.
test: deps
	@if [ -z "$${DISPLAY:-}" ]; then
		n=99
		while [ -e "/tmp/.X$$n-lock" ] || [ -e "/tmp/.X11-unix/X$$n" ]; do n=$$((n + 1)); done
		log="$${TMPDIR:-/tmp}/slosh-xvfb-$$n.log"
		Xvfb ":$$n" -screen 0 1280x720x24 -nolisten tcp </dev/null >"$$log" 2>&1 &
		xvfb=$$!
		trap 'kill "$$xvfb" 2>/dev/null || true; wait "$$xvfb" 2>/dev/null || true' EXIT
		for i in $$(seq 100); do
			[ -S "/tmp/.X11-unix/X$$n" ] && break
			if ! kill -0 "$$xvfb" 2>/dev/null; then echo "make test: Xvfb :$$n failed to start:" >&2; cat "$$log" >&2; exit 1; fi
			sleep 0.1
		done
		export DISPLAY=":$$n"
		echo "make test: started Xvfb on $$DISPLAY (log: $$log)"
	fi
	export SLOSH_REQUIRE_GL=1
	echo "go vet ./... (GOEXPERIMENT=$$GOEXPERIMENT, and the packages with SIMD code without it)"
	$(GO) vet ./...
	GOEXPERIMENT= $(GO) vet ./sim/grid ./sim/pbf
	unformatted="$$(gofmt -l .)"
	if [ -n "$$unformatted" ]; then echo "make test: gofmt -w these files:" >&2; echo "$$unformatted" >&2; exit 1; fi
	echo "go test $(TESTFLAGS) ./..."
	$(GO) test $(TESTFLAGS) ./...

# bench runs the solvers' Go benchmarks, whole-scene `slosh bench` runs at Table 1's setting (2 substeps,
# 3 iterations) and, with a display, whole frames with rendering (--render); JSON results go to $(BENCH_OUT). docs/BENCHMARKS.md lists the same commands.
TABLE1 := --set pbf.substeps=2 --set pbf.substeps_max=2 --set pbf.iterations=3
bench: build
	@mkdir -p $(BENCH_OUT)
	$(GO) test -bench 'Step' -benchtime 10x -run XXX ./sim/...
	for n in 8000 32000 128000; do
		./$(BIN) bench --mode pbf-cpu --scene dambreak --particles $$n --frames 20 $(TABLE1) --json $(BENCH_OUT)/pbf-cpu-dambreak-$$n.json
	done
	# FLIP: Table 3.2's stages, unilateral and classic, on 64³ and 128×64×64 grids at 8 particles a cell
	for g in 64 128; do
		for p in unilateral incompressible; do
			./$(BIN) bench --scene docs/bench/flip-dambreak-$$g.json --frames 3 --warmup 2 --set flip.pressure=$$p --set flip.substeps=2 --set flip.substeps_max=2 --json $(BENCH_OUT)/flip-$$p-$$g.json
		done
	done
	# SPH: PCISPH on the shared 97k dam break (510 steps at η = 0.1 %)
	./$(BIN) bench --scene bench-dambreak --frames 30 --warmup 0 --json $(BENCH_OUT)/sph-bench-dambreak.json
	# the reduced game: Table 5.1's stages in Figure 5.6's setting, and the third level
	$(GO) test -bench 'Figure56' -benchtime 200x -run XXX ./sim/reduced/game/
	./$(BIN) bench --mode reduced --scene reduced-3 --frames 120 --json $(BENCH_OUT)/reduced-3.json
	if [ -n "$${DISPLAY:-}$${WAYLAND_DISPLAY:-}" ]; then
		$(GO) test -bench 'Step' -benchtime 5x -run XXX ./gpu/pbf/
		for n in 8000 32000 128000; do
			./$(BIN) bench --mode pbf --scene dambreak --particles $$n --frames 10 $(TABLE1) --json $(BENCH_OUT)/pbf-dambreak-$$n.json
		done
		# whole frames: the steps at the default time step plus the surface pipeline at 1280×720
		for n in 32000 1000000; do
			./$(BIN) bench --mode pbf --scene dambreak --particles $$n --frames 10 --warmup 3 --render --json $(BENCH_OUT)/pbf-dambreak-render-$$n.json
		done
	else
		echo "make bench: no display, skipping the GPU benchmarks (they need an OpenGL 4.3 context)"
	fi

# peers remakes slosh's side of the table against the C++ codes (docs/BENCHMARKS.md, issue 30): every row's
# command three times, best and spread, accuracy beside time. Run it with nothing else on the machine.
peers: build
	SLOSH=./$(BIN) sh docs/bench/peers.sh

# fuzz runs every Go fuzz target of the module for FUZZTIME each: the packages whose tests define a Fuzz function,
# each target found by `go test -list`. Their seed corpora run in `make test` too. A finding stops it and leaves the
# failing input in the package's testdata/fuzz/ (keep it there as a seed once fixed).
fuzz:
	@found=0
	pkgs="$$($(GO) list -f '{{.Dir}} {{.ImportPath}}' ./...)"
	while read -r dir pkg; do
		grep -qs '^func Fuzz' "$$dir"/*_test.go || continue
		for target in $$($(GO) test -list '^Fuzz' "$$pkg" | grep '^Fuzz' || true); do
			found=$$((found + 1))
			echo "go test -run '^$$target\$$' -fuzz '^$$target\$$' -fuzztime $(FUZZTIME) $(FUZZFLAGS) $$pkg"
			$(GO) test -run "^$$target\$$" -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) $(FUZZFLAGS) "$$pkg" </dev/null
		done
	done <<<"$$pkgs"
	echo "make fuzz: $$found fuzz targets ran for $(FUZZTIME) each"

# interop checks that the tools artists finish shots in read what `slosh export` writes (issue 32): Debian's Blender,
# headless, imports a frame's OpenVDB level set and fog volume and its OBJ mesh, checks them and renders the level
# set with Cycles (INTEROP_OUT/blender-vdb.png); Pixar's OpenUSD (Autodesk's WebAssembly build of it, from the npm
# package three-usdz-loader, run in Node) plays the USD stage and every time code is checked against the PLY frame
# and the OBJ meshes (the dam break's surface; the duck pond's bodies, each moved by its transform), and Blender
# renders three of the dam break's time codes (INTEROP_OUT/blender-usd.png). Debian 12 has no USD
# library and builds Blender without USD, hence that build (tools/interop/usdstage.cjs says what it checks).
INTEROP_OUT ?= captures/interop
USD_WASM := three-usdz-loader@1.0.9
USD_WASM_DIR := $(CURDIR)/build/interop/node_modules/three-usdz-loader/external
interop: deps build
	@start=$$(date +%s)
	pkgs="blender"
	# Node from Debian unless one is there already (NodeSource's nodejs carries its own npm, which Debian's conflicts with)
	if ! command -v node >/dev/null || ! command -v npm >/dev/null; then pkgs="$$pkgs nodejs npm"; fi
	$(call apt_install,$$pkgs)
	if [ ! -f $(USD_WASM_DIR)/emHdBindings.wasm ]; then
		mkdir -p build/interop
		npm install --silent --no-audit --no-fund --prefix build/interop $(USD_WASM)
	fi
	rm -rf $(INTEROP_OUT)
	./$(BIN) export --scene dambreak --mode pbf-cpu --particles 16000 --frames 45 --out $(INTEROP_OUT) \
		--mesh obj --vdb --vdb-density --usd
	out=$(CURDIR)/$(INTEROP_OUT)
	voxel=$$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["vdb_voxel_size"])' $$out/slosh-export.json)
	blend() { # runs Blender headless on a script of tools/interop, its output in a log shown when it fails
		log="$$out/blender-$$1.log"
		if ! blender -b --factory-startup --python "tools/interop/$$1.py" -- "$${@:2}" >"$$log" 2>&1; then
			tail -n 30 "$$log" >&2
			echo "make interop: Blender's $$1 failed (all its output: $$log)" >&2
			exit 1
		fi
	}
	blend blender_vdb $$out/surface_000045.vdb $$out/surface_000045.obj "$$voxel" --render $$out/blender-vdb.png
	grep '^{' "$$out/blender-blender_vdb.log"
	USD_WASM_DIR=$(USD_WASM_DIR) node --require ./tools/interop/usdwasm-prelude.cjs tools/interop/usdstage.cjs \
		$$out $$out 1 20 45
	# rigid bodies: the duck pond's ten ducks, each moved by its transform, against their OBJ meshes
	./$(BIN) export --scene duck-pond --mode pbf-cpu --particles 6000 --frames 10 --out $(INTEROP_OUT)/ducks \
		--mesh obj --usd
	USD_WASM_DIR=$(USD_WASM_DIR) node --require ./tools/interop/usdwasm-prelude.cjs tools/interop/usdstage.cjs \
		$$out/ducks
	blend blender_usd $$out/usd-t $$out/usd_1.obj $$out/usd_20.obj $$out/usd_45.obj
	ffmpeg -loglevel error -y -i $$out/usd-t1.png -i $$out/usd-t20.png -i $$out/usd-t45.png \
		-filter_complex hstack=inputs=3 $$out/blender-usd.png
	echo "make interop: passed in $$(( $$(date +%s) - start )) s; renders: $(INTEROP_OUT)/blender-vdb.png, $(INTEROP_OUT)/blender-usd.png"

clean:
	rm -f $(BIN)
	rm -rf $(BENCH_OUT)
