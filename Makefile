# The README's two commands: `make demo` and `make test`. Both install what is missing, then build.
# `make bench` / `make bench-quick`: the benchmark report (bench/report/), not part of `make test`.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo

.PHONY: deps build demo test bench-cli bench bench-quick clean

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

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The benchmark report into bench/results/ (README.md, CSV, PNG): hours in full, under 10 minutes quick.
# It needs only the CLI, so only that target is built.
bench-cli:
	@bash scripts/install-deps.sh --bench
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS) --target hiremate

bench: bench-cli
	/usr/bin/python3 bench/report/report.py

bench-quick: bench-cli
	/usr/bin/python3 bench/report/report.py --quick

clean:
	rm -rf $(BUILD)
