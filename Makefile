# The README's two commands: `make demo` and `make test`. Both install what is missing, then build.
# `make bench` / `make bench-quick`: the benchmark report (bench/report/), not part of `make test`.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo
# ccache without the build folder in its hash: the `pip install .` test builds the same objects in a
# folder of its own (build/pip-build), and on a fresh clone it compiled them all again (412 s in CI).
export CCACHE_NOHASHDIR := 1

.PHONY: deps build demo test test-asan fuzz bench-cli bench bench-quick clean

deps:
	@bash scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

# The main job on the built-in examples: describe, plan under a budget, check the plan.
demo: build
	$(BUILD)/hiremate info examples/unet-dag.json
	$(BUILD)/hiremate solve examples/unet-dag.json --solver checkmate --budget 0.6 --schedule-out $(BUILD)/unet-plan.json
	$(BUILD)/hiremate simulate examples/unet-dag.json $(BUILD)/unet-plan.json
	$(BUILD)/hiremate info examples/mlp4-train.json
	$(BUILD)/hiremate solve examples/mlp4-train.json --solver autograd --budget 1.0
	$(BUILD)/hiremate solve examples/mlp4-train.json --solver recompute_all --budget 64MiB
	@if [ -e $(BUILD)/libhiremate_torch_plugin.so ]; then \
	  /usr/bin/python3 examples/models/trace.py $(BUILD)/models gpt2 && \
	  $(BUILD)/hiremate train $(BUILD)/models/gpt2.pt --inputs $(BUILD)/models/gpt2.inputs.pt \
	    --budget 50% --steps 3 --time-limit 20; \
	else echo "(built without LibTorch: skipping the PyTorch training demo)"; fi

test: build test-asan
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The benchmark report into bench/results/ (README.md, CSV, PNG): hours in full, under 10 minutes quick.
# It needs only the CLI, so only that target is built.
bench-cli:
	@bash scripts/install-deps.sh
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS) --target hiremate

bench: bench-cli
	/usr/bin/python3 bench/report/report.py

bench-quick: bench-cli
	/usr/bin/python3 bench/report/report.py --quick

# The core and its tests under AddressSanitizer + UBSan, in a build dir of its own. Tests labelled
# "slow" (long solver searches, several times slower under ASan) run only in the normal build.
ASAN_BUILD ?= build-asan
ASAN_ENV = ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitizers/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHIREMATE_SANITIZE=ON -DHIREMATE_WITH_TORCH=OFF -DHIREMATE_BUILD_BENCH=OFF
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && $(ASAN_ENV) ctest --output-on-failure -j $(JOBS) -LE slow

# libFuzzer: every target for FUZZ_SECONDS each (clang; fuzz/run.sh says where seeds and crashes go).
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 600
fuzz: build
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHIREMATE_FUZZ=ON \
	  -DHIREMATE_BUILD_TESTS=OFF -DHIREMATE_BUILD_BENCH=OFF -DHIREMATE_WITH_TORCH=OFF
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_targets
	bash fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(BUILD)/hiremate

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
