# SPDX-License-Identifier: MIT
# Two commands on a fresh Debian 12 machine (as root): `make run` and `make test`.
# Both install the Debian packages that are missing, configure and build with CMake.

BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
PREFIX ?= /usr/local
DEB_PACKAGES := cmake make gcc libc6-dev git ocl-icd-opencl-dev opencl-c-headers \
                pocl-opencl-icd mesa-opencl-icd libclblast-dev clinfo oclgrind python3 \
                pkgconf libxml2-utils chromium clpeak libvkfft-dev \
                python3-numpy python3-pytest python3-venv python3-pip python3-setuptools \
                python3-wheel intel-opencl-icd clang-15 rocm-device-libs \
                libjansson-dev

.PHONY: all deps build run test test-sanitize install clean

all: build

# Installs the packages dpkg does not list as installed (needs root or sudo).
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" -eq 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

# Lists devices, then validates and benchmarks the small suite on the default device (the first
# GPU, else the first CPU: PoCL on a machine without a GPU).
run: build
	$(BUILD)/xconv devices
	$(BUILD)/xconv validate --suite small
	$(BUILD)/xconv bench --suite small --repeat 5

# Installs bin/xconv, the libraries, the header, the CMake package and xconv.pc under $(PREFIX).
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The same tests built with AddressSanitizer and UndefinedBehaviorSanitizer. Intel's OpenCL
# driver (intel-opencl-icd, installed for its offline compiler ocloc) is left out of the ICDs they
# load: it dlopens with RTLD_DEEPBIND, which AddressSanitizer refuses by aborting the process.
test-sanitize: deps
	cmake -S . -B $(BUILD)-sanitize -DCMAKE_BUILD_TYPE=Debug -DXCONV_SANITIZE=ON $(CMAKE_FLAGS)
	cmake --build $(BUILD)-sanitize -j $(JOBS)
	rm -rf $(BUILD)-sanitize/icd && mkdir -p $(BUILD)-sanitize/icd && \
	  for f in /etc/OpenCL/vendors/*.icd; do \
	    [ ! -f "$$f" ] || grep -q libigdrcl "$$f" || cp "$$f" $(BUILD)-sanitize/icd/; \
	  done
	cd $(BUILD)-sanitize && OCL_ICD_VENDORS=$(abspath $(BUILD)-sanitize)/icd \
	  ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD) $(BUILD)-sanitize
