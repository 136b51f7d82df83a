# scalelab: one non-recursive Makefile; everything it writes goes under $(BUILD).
# Sources are found by folder, so adding a module is adding a file.

BUILD   ?= build
PREFIX  ?= /usr/local
CC      ?= cc
V       ?= 0

PKGS     := libmicrohttpd jansson libcurl openssl libxml-2.0 libcbor zlib
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null)
# GetMetricWidgetImage's PNG: the chart common/svg draws, rasterized by librsvg (Debian's
# librsvg2, on cairo and glib). A list of its own so only the file that calls it
# (emulator/widget_png.c) sees glib's headers and only the programs that hold it (the
# emulator, the unit tests) link it: loadgen and scaler stay free of glib.
IMAGE_PKGS   := librsvg-2.0
IMAGE_CFLAGS := $(shell pkg-config --cflags $(IMAGE_PKGS) 2>/dev/null)
IMAGE_LIBS   := $(shell pkg-config --libs $(IMAGE_PKGS) 2>/dev/null)

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wformat=2 -Wpointer-arith -Wundef -Wvla
OPT     ?= -O2 -g
CFLAGS  ?=
CFLAGS  += -std=c11 -D_GNU_SOURCE $(WARN) $(OPT) -I. $(PKG_CFLAGS) -MMD -MP
LDFLAGS ?=
LDLIBS  := $(PKG_LIBS) -lpthread -lm

ifeq ($(V),0)
Q = @
say = @printf '  %-6s %s\n' $(1) $(2);
else
Q =
say =
endif

# --- libraries -------------------------------------------------------------
COMMON_SRC   := $(sort $(wildcard common/*.c))
SCALER_SRC   := $(sort $(wildcard scaler/*.c))
SIM_SRC      := $(sort $(wildcard scaler/sim/*.c))
EMULATOR_SRC := $(sort $(wildcard emulator/*.c))
LOADGEN_SRC  := $(sort $(wildcard loadgen/*.c))
# Generated C (the AWS service-model tables) lives under $(BUILD)/gen; the generator
# (scripts/gen-models.py) reads only the models the repository carries in emulator/models/
# (trimmed from botocore; `make models` refreshes them): the same tables on every machine.
GEN_SRC      := $(BUILD)/gen/model_tables.c
MODEL_DATA   := $(sort $(wildcard emulator/models/*.json))

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

LIBCOMMON := $(BUILD)/lib/libcommon.a
LIBSCALER := $(BUILD)/lib/libscaler.a
LIBSIM    := $(BUILD)/lib/libsim.a
LIBEMU    := $(BUILD)/lib/libemulator.a
LIBLOADGEN := $(BUILD)/lib/libloadgen.a

# Each program's main.c stays out of its library so unit tests can link the rest.
lib_src = $(filter-out $(1)/main.c,$(2))

$(LIBCOMMON): $(call obj,$(COMMON_SRC))
$(LIBSCALER): $(call obj,$(SCALER_SRC))
$(LIBSIM): $(call obj,$(call lib_src,scaler/sim,$(SIM_SRC)))
$(LIBEMU): $(call obj,$(call lib_src,emulator,$(EMULATOR_SRC))) $(call obj,$(GEN_SRC))

$(BUILD)/gen/model_tables.c: scripts/gen-models.py $(MODEL_DATA)
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)python3 scripts/gen-models.py $@
$(LIBLOADGEN): $(call obj,$(call lib_src,loadgen,$(LOADGEN_SRC)))

$(BUILD)/lib/%.a:
	@mkdir -p $(dir $@)
	$(call say,AR,$@)$(RM) $@ && ar rcs $@ $^ $(if $^,,$(BUILD)/obj/empty.o)

# Every library exists even while its folder is empty, so links never break.
$(BUILD)/obj/empty.o:
	@mkdir -p $(dir $@)
	$(Q)printf 'typedef int scalelab_empty_unit;\n' | $(CC) -x c -c -o $@ -
$(LIBCOMMON) $(LIBSCALER) $(LIBSIM) $(LIBEMU) $(LIBLOADGEN): | $(BUILD)/obj/empty.o

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/obj/emulator/widget_png.o: CFLAGS += $(IMAGE_CFLAGS)

# The console page is assembled into the emulator (.incbin: emulator/console.c).
$(BUILD)/obj/emulator/console.o: emulator/console.html

# --- programs ----------------------------------------------------------------
BINS :=
ifneq ($(wildcard scaler/sim/main.c),)
BINS += $(BUILD)/bin/scaler
$(BUILD)/bin/scaler: $(call obj,scaler/sim/main.c) $(LIBSIM) $(LIBSCALER) $(LIBCOMMON)
endif
ifneq ($(wildcard emulator/main.c),)
BINS += $(BUILD)/bin/emulator
$(BUILD)/bin/emulator: $(call obj,emulator/main.c) $(LIBEMU) $(LIBSCALER) $(LIBCOMMON)
$(BUILD)/bin/emulator: LDLIBS += $(IMAGE_LIBS)
endif
ifneq ($(wildcard emulator/instance/main.c),)
# The emulated instance alone, linked --as-needed so each of hundreds of children maps
# only libc, libm and jansson (emulator/instance.c runs it when present).
BINS += $(BUILD)/bin/emulator-instance
$(BUILD)/bin/emulator-instance: LDFLAGS += -Wl,--as-needed
$(BUILD)/bin/emulator-instance: LDLIBS += $(IMAGE_LIBS)
$(BUILD)/bin/emulator-instance: $(call obj,emulator/instance/main.c) $(LIBEMU) $(LIBSCALER) $(LIBCOMMON)
endif
ifneq ($(wildcard loadgen/main.c),)
BINS += $(BUILD)/bin/loadgen
# loadgen scenario links libsim for the scenario toolkit it shares with scaler simulate
# (scenario parser, load shapes, timeline, expectations, elasticity, outputs, report) and
# for its prediction, which it reaches only through scaler/sim/predict.h (sim_predict: the
# scenario simulated, a group's capacity per sample); libsim's engine needs libscaler.
$(BUILD)/bin/loadgen: $(call obj,loadgen/main.c) $(LIBLOADGEN) $(LIBSIM) $(LIBSCALER) $(LIBCOMMON)
endif

$(BUILD)/bin/%:
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# --- unit tests: tests/unit/<folder>/test_<module>.c, one binary each ------------
UNIT_SRC := $(sort $(wildcard tests/unit/*/test_*.c))
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
# loadgen uses libsim (the scenario toolkit, sim_predict): it comes first
ALL_LIBS := $(LIBLOADGEN) $(LIBSIM) $(LIBEMU) $(LIBSCALER) $(LIBCOMMON)

$(BUILD)/tests/%: tests/unit/%.c $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(ALL_LIBS) $(LDLIBS) $(IMAGE_LIBS) $(CMOCKA_LIBS)

# --- targets -------------------------------------------------------------------
.PHONY: all deps test test-run demo-run demo-seed unit integration asan bench demo fuzz golden soak models models-check format format-check fresh-check install clean
.DEFAULT_GOAL := all

all: $(BINS) $(UNIT_BIN)

deps:
	@scripts/deps.sh

# The README's two commands: each first installs what the machine lacks (make test: the
# build and every test's tools; make demo: the build's), then re-enters make so
# pkg-config sees the new libraries.
test:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory test-run

test-run: all
	@BUILD=$(BUILD) tests/run.sh

unit: all
	@BUILD=$(BUILD) tests/run.sh unit

integration: all
	@BUILD=$(BUILD) tests/run.sh integration

ASAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
asan:
	$(MAKE) BUILD=build-asan OPT="$(ASAN_FLAGS)" LDFLAGS="-fsanitize=address,undefined" all
	@ASAN=1 BUILD=build-asan tests/run.sh

bench:
	@scripts/deps.sh --bench
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) bench/run.sh

demo:
	@scripts/deps.sh --build
	@$(MAKE) --no-print-directory demo-run

demo-run: $(BINS)
	@BUILD=$(BUILD) scripts/demo.sh

# The seed tutorial itself, 30 emulated hours at x600 (about 3 minutes), its closed bursts
# served on the emulated clock (docs/dataplane.md, Time).
demo-seed:
	@scripts/deps.sh --build
	@$(MAKE) --no-print-directory $(BINS)
	@$(BUILD)/bin/loadgen scenario scenarios/seed-tutorial.json --time-scale 600 \
		--report $(BUILD)/demo-seed-report.html

# The README's two commands on a fresh Debian 12 (debootstrap + chroot; root; 10-15 min).
fresh-check:
	@scripts/fresh-check.sh

fuzz:
	@BUILD=build-fuzz scripts/fuzz.sh

golden: all
	@BUILD=$(BUILD) scripts/golden.sh

# a bounded (<= 10 min) replay of issue 19's probes with RSS, fd, CPU and answer-time
# bounds (docs/soak.md); not part of `make test` or .ci/run
soak: all
	@BUILD=$(BUILD) tests/soak/soak.sh

# emulator/models/ from a botocore (the one python3 imports, or BOTOCORE=DIR), for review
# in git; models-check only reports how the carried models differ from that botocore.
models:
	@python3 scripts/models-refresh.py $(if $(BOTOCORE),--botocore $(BOTOCORE))

models-check:
	@python3 scripts/models-refresh.py --check $(if $(BOTOCORE),--botocore $(BOTOCORE))

# Tracked and new (untracked, not ignored) files alike, so a new file is formatted before its first commit.
FORMAT_SRC = $(shell git ls-files --cached --others --exclude-standard '*.c' '*.h' 2>/dev/null)
format:
	clang-format -i $(FORMAT_SRC)

format-check:
	clang-format --dry-run --Werror $(FORMAT_SRC)

install: $(BINS)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BINS) $(DESTDIR)$(PREFIX)/bin

clean:
	$(RM) -r build build-asan build-fuzz

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
