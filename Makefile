# The README's two commands: `make demo` and `make test`. Both install what is missing, then build.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo

.PHONY: deps build demo test clean

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

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD)
