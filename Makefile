# The only entry point of the project. `make help` lists every target and variable.

# --- The CUDA Toolkit ---------------------------------------------------------------------------
# nvcc from CUDA_HOME (or CUDA_PATH) when one is set, else from PATH, else /usr/local/cuda. Its bin
# folder goes first on PATH for the scripts too, so ncu and compute-sanitizer come from the same
# toolkit.
CUDA_HOME ?= $(CUDA_PATH)
comma     := ,
# User text reaches a shell only as data: sq quotes one word for the shell ('it'\''s'), and
# ARGS goes to the recipes through the environment.
sq        = '$(subst ','\'',$(1))'
sq_words  = $(foreach w,$(1),$(call sq,$w))
export ARGS
ifeq ($(NVCC),)
NVCC := $(or $(wildcard $(if $(CUDA_HOME),$(CUDA_HOME)/bin/nvcc)),$(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc),nvcc)
endif
CUDA_BIN  := $(patsubst %/,%,$(dir $(shell command -v $(NVCC) 2>/dev/null)))
CUDA_LIB  := $(if $(CUDA_BIN),$(CUDA_BIN)/../lib64)
ifneq ($(CUDA_BIN),)
export PATH := $(CUDA_BIN):$(PATH)
endif

# --- What to build for ----------------------------------------------------------------------------
# ARCH: native (the GPU in this machine; the default where there is one), sm_90 where there is
# none, or a list for a lab with several GPU kinds: ARCH="80 86 90" or ARCH=sm_80,sm_90. Each
# entry becomes machine code for that GPU; the newest also gets PTX, which the driver compiles
# for GPUs newer than any in the list.
ARCH      ?= $(shell nvidia-smi -L >/dev/null 2>&1 && echo native || echo sm_90)
ARCH_LIST := $(patsubst sm_%,%,$(patsubst compute_%,%,$(subst $(comma), ,$(ARCH))))
ARCH_BAD  := $(if $(strip $(ARCH_LIST)),$(shell printf '%s\n' $(call sq_words,$(subst $(comma), ,$(ARCH))) | grep -Evx 'native|((sm|compute)_)?[0-9]{2,3}[af]?'),(empty))
ARCH_NEWEST = $(shell printf '%s\n' $(call sq_words,$(ARCH_LIST)) | sort -n | tail -n 1)
GENCODE   := $(if $(filter native,$(ARCH_LIST)),-arch=native,$(foreach a,$(ARCH_LIST),-gencode arch=compute_$(a)$(comma)code=sm_$(a)) -gencode arch=compute_$(ARCH_NEWEST)$(comma)code=compute_$(ARCH_NEWEST))

NVCCFLAGS ?= -O3 -std=c++20 -lineinfo
CC        := gcc
CFLAGS    ?= -O2 -std=c11 -Wall -Wextra -pedantic
# Warnings are always shown; WERROR=1 (make test, CI) makes them errors. A student's build does
# not fail on a newer compiler's new warning. Omitted fields of a designated initializer are
# deliberate zeros.
WERROR    ?=
WARN      := $(if $(WERROR),-Werror all-warnings )-Xcompiler -Wall,-Wextra,-Wno-missing-field-initializers$(if $(WERROR),$(comma)-Werror)
CWARN     := $(if $(WERROR),-Werror)
# The host side (inputs, CPU references, checks) runs on every core through OpenMP; the
# results do not depend on the number of threads (tests/unit/test_rng.c shows it).
OPENMP    := -fopenmp
BUILD     := build
RESULTS_COMMIT ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD -- chapters common 2>/dev/null || echo -dirty)
export RESULTS_COMMIT

CHAPTER_DIRS := $(sort $(patsubst %/problem.cu,%,$(wildcard chapters/[0-9][0-9]-*/problem.cu)))
COMMON_OBJ   := $(patsubst common/%.c,$(BUILD)/common/%.o,$(wildcard common/*.c)) \
                $(patsubst common/%.cu,$(BUILD)/common/%.o,$(wildcard common/*.cu))
LIBCOMMON    := $(BUILD)/libcommon.a

# Objects are intermediates of the programs; keep them so a rebuild compiles only what changed.
.SECONDARY:
.DELETE_ON_ERROR:
.PHONY: all help test unit results evidence sanitize compare doctor readme deps clean print-arch print-nvcc FORCE
.DEFAULT_GOAL := help

help:
	@echo "targets:"
	@echo "  make chapter-NN     build, verify and time chapter NN on this GPU (chapter-5 = chapter-05)"
	@echo "  make NN-slug        build one chapter's programs (make 20-matrix-transpose)"
	@echo "  make all            build every chapter's programs"
	@echo "  make results        measure the chapters on this GPU into results/<gpu>.csv, then"
	@echo "                      their evidence (needs a GPU and ncu)"
	@echo "  make evidence       record the profiler, compiler and host evidence of the chapters into"
	@echo "                      results/evidence/<gpu>.csv (needs a GPU and ncu)"
	@echo "  make compare        this GPU's results next to each reference GPU's, every chapter"
	@echo "                      (after make results; GPU=NAME compares another results file)"
	@echo "  make doctor         what moves the numbers here: GPU state, clocks, host link, driver,"
	@echo "                      CPU, roofs measured beside the reference GPUs', and the figure behind"
	@echo "                      each chapter of your results that differs (needs a GPU; under a minute)"
	@echo "  make readme         regenerate the generated blocks of every chapter README"
	@echo "  make test           host unit tests, warnings-as-errors build, CLI and no-GPU checks,"
	@echo "                      results staleness, the book; on a GPU every chapter at small and odd"
	@echo "                      sizes, every knob value the prose uses, all four sanitizer tools"
	@echo "  make unit           host unit tests of common/ only"
	@echo "  make sanitize       compute-sanitizer's memcheck, racecheck, initcheck and synccheck on"
	@echo "                      every program (needs a GPU and compute-sanitizer)"
	@echo "  make profile-NN     Nsight Compute metrics of chapter NN side by side (needs a GPU and ncu)"
	@echo "  make book           book/out/book.pdf, html/index.html (a page per chapter), book.html, book.epub"
	@echo "  make book-check     build the book and check it"
	@echo "  make deps           install what the book needs (Debian packages; needs root)"
	@echo "  make clean          remove build/, the programs and book/out/"
	@echo "variables (make VAR=value ...):"
	@echo "  ARCH       GPUs to build for: native, 90, sm_80, \"80 86 90\" or sm_80,sm_90 (now: $(ARCH))"
	@echo "  NVCCFLAGS  nvcc's flags (now: $(NVCCFLAGS))"
	@echo "  CUDA_HOME  the CUDA Toolkit (also CUDA_PATH); nvcc, ncu, compute-sanitizer come from"
	@echo "             its bin/ (now: nvcc = $(NVCC))"
	@echo "  CHAPTERS   chapter numbers for results, evidence, sanitize and the GPU part of test: CHAPTERS=\"20 13\""
	@echo "  ARGS       options for chapter-NN and profile-NN programs: ARGS=\"--size 4096\""
	@echo "  GPU        make compare, make doctor: whose results are yours (default: this machine's GPU)"
	@echo "  WERROR     1: warnings are errors (make test and CI set it)"
	@echo "  CFLAGS     gcc's flags for the host C of common/"
	@echo "  TEST_JOBS  programs make test and make sanitize run side by side (default: one per core)"
	@echo "how long the loops took, timed on the machines named, under the load shown (results/loops/times.csv):"
	@loops=$$(python3 scripts/results.py loops --results-dir $(call sq,$(RESULTS_DIR))) || { echo "error: make help: $(RESULTS_DIR)/loops/times.csv cannot be read (the line above says why)" >&2; exit 2; }; \
	printf '%s\n' "$$loops" | sed 's/^/  /'

# --- Fail fast: what a target needs, checked before anything is built ---------------------------
need_gpu  = nvidia-smi -L >/dev/null 2>&1 || { echo "error: make $@ needs a CUDA GPU, and nvidia-smi sees none on this machine" >&2; exit 3; }
need_tool = command -v $(1) >/dev/null 2>&1 || { echo "error: make $@ needs $(1) ($(2), part of the CUDA Toolkit): not found in $(or $(CUDA_BIN),PATH)" >&2; exit 2; }

# The chapter folder of number N: "5" and "05" name chapter 05; anything else names none. Only
# digits are looked up (in make, before any shell): a "%" would be a pattern to filter.
no_digits   = $(subst 0,,$(subst 1,,$(subst 2,,$(subst 3,,$(subst 4,,$(subst 5,,$(subst 6,,$(subst 7,,$(subst 8,,$(subst 9,,$(1)))))))))))
only_digits = $(if $(strip $(1)),$(if $(call no_digits,$(1)),,y))
chapter_nn  = $(patsubst chapters/%,%,$(firstword $(subst -, ,$(1))))
chapter_dir = $(if $(and $(call only_digits,$(1)),$(filter 1,$(words $(1)))),$(strip $(foreach d,$(CHAPTER_DIRS),$(if $(filter $(1),$(call chapter_nn,$d) $(patsubst 0%,%,$(call chapter_nn,$d))),$d))))
# The folders named by CHAPTERS (all when empty), and the numbers it gets wrong.
SELECTED    = $(if $(CHAPTERS),$(foreach n,$(CHAPTERS),$(call chapter_dir,$n)),$(CHAPTER_DIRS))
CHAPTER_ARGS = $(if $(CHAPTERS),$(foreach d,$(SELECTED),$(call chapter_nn,$d)))
BAD_CHAPTERS = $(foreach n,$(CHAPTERS),$(if $(call chapter_dir,$n),,$n))
need_chapters = $(if $(strip $(BAD_CHAPTERS)),{ echo "error: CHAPTERS: no chapter "$(call sq,$(strip $(BAD_CHAPTERS)))"; chapters: $(CHAPTER_NNS)" >&2; exit 2; })
CHAPTER_NNS   = $(foreach d,$(CHAPTER_DIRS),$(call chapter_nn,$d))
no_chapter    = echo "error: there is no chapter '"$(call sq,$(1))"'; chapters: $(CHAPTER_NNS)" >&2; exit 2

# --- Build --------------------------------------------------------------------------------------
# The toolkit and flags every object was compiled with. The file changes only when they do, so
# `make ARCH=sm_80` after a default build recompiles everything, and a plain make after it again.
ARCH_USE    := use native, 90, sm_80, '80 86 90' or sm_80,sm_90
FLAGS_STAMP := $(BUILD)/flags.txt
FLAGS_TEXT  := $(NVCC) $(GENCODE) $(NVCCFLAGS) $(WARN) | $(CC) $(CFLAGS) $(CWARN) $(OPENMP)
$(FLAGS_STAMP): FORCE
	@$(if $(ARCH_BAD),echo "error: ARCH: "$(call sq,'$(strip $(ARCH_BAD))')" is not a GPU architecture; $(ARCH_USE)" >&2; exit 2)
	@command -v '$(NVCC)' >/dev/null 2>&1 || { echo "error: nvcc not found: put the CUDA Toolkit's bin/ on PATH or set CUDA_HOME (make help)" >&2; exit 2; }
	@mkdir -p $(@D)
	@echo '$(FLAGS_TEXT)' | cmp -s - $@ || echo '$(FLAGS_TEXT)' >$@

all: $(LIBCOMMON)

$(BUILD)/common/%.o: common/%.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CWARN) $(OPENMP) -MMD -MP -c $< -o $@

$(BUILD)/common/%.o: common/%.cu $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(GENCODE) $(WARN) -Xcompiler $(OPENMP) -MMD -MP -c $< -o $@

$(LIBCOMMON): $(COMMON_OBJ)
	@rm -f $@
	ar rcs $@ $^

# One set of rules per chapter. A chapter may add chapters/NN-slug/chapter.mk
# with NVCCFLAGS.<NN-slug>.<variant> (extra compile flags of one program) and
# LDLIBS.<NN-slug>.<variant> (libraries of one program, such as -lcublas).
-include $(wildcard chapters/*/chapter.mk)

# The hash of a chapter's sources, written into every results row it produces.
# A chapter's shared-sources file names the files of common/ that are its problem (chapters 20
# and 21 share one): they are part of its hash.
source_files = $(sort $(wildcard $(1)/*.cu $(1)/*.h $(1)/*.c $(1)/chapter.mk)) \
               $(if $(wildcard $(1)/shared-sources),$(shell cat $(1)/shared-sources))
source_hash  = $(shell cat $(call source_files,$(1)) | sha256sum | cut -c1-12)

# Each program's main() carries the hash (SOURCE_HASH), so a program object is recompiled when
# any file of its chapter changes; problem.o only when what it includes does (-MMD).
define CHAPTER_RULES
$(1)_NAME := $(notdir $(1))
$(1)_HASH := $(call source_hash,$(1))
$(1)_PROGRAMS := $(patsubst %.cu,%,$(wildcard $(1)/naive.cu $(1)/optimized.cu $(1)/library.cu))

$(BUILD)/$(notdir $(1))/source-hash.txt: FORCE
	@mkdir -p $$(@D)
	@echo '$$($(1)_HASH)' | cmp -s - $$@ || echo '$$($(1)_HASH)' >$$@

$$(patsubst $(1)/%,$(BUILD)/$(notdir $(1))/%.o,$$($(1)_PROGRAMS)): $(BUILD)/$(notdir $(1))/source-hash.txt

$(BUILD)/$(notdir $(1))/%.o: $(1)/%.cu $(wildcard $(1)/chapter.mk) $(FLAGS_STAMP)
	@mkdir -p $$(@D)
	$(NVCC) $(NVCCFLAGS) $(GENCODE) $(WARN) -Xcompiler $(OPENMP) -MMD -MP -Icommon -I$(1) -DSOURCE_HASH='"$$($(1)_HASH)"' $$(NVCCFLAGS.$(notdir $(1)).$$*) -c $$< -o $$@

$(1)/%: $(BUILD)/$(notdir $(1))/%.o $(BUILD)/$(notdir $(1))/problem.o $(LIBCOMMON)
	$(NVCC) $(GENCODE) -Xcompiler $(OPENMP) $$(filter %.o %.a,$$^) -o $$@ $$(LDLIBS.$(notdir $(1)).$$*) $(if $(CUDA_LIB),-Xlinker -rpath=$(CUDA_LIB))

all: $$($(1)_PROGRAMS)
$(notdir $(1)): $$($(1)_PROGRAMS)
endef
$(foreach d,$(CHAPTER_DIRS),$(eval $(call CHAPTER_RULES,$(d))))

# Programs with a planted bug (tests/planted/planted.cu): make test shows the checker catches each.
$(BUILD)/tests/planted-%: tests/planted/planted.cu $(LIBCOMMON) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@mkdir -p $(BUILD)/deps
	$(NVCC) $(NVCCFLAGS) $(GENCODE) $(WARN) -Xcompiler $(OPENMP) -MMD -MP -MF $(BUILD)/deps/$(@F).d -Icommon -DPLANT=$* $< $(LIBCOMMON) -o $@ $(if $(CUDA_LIB),-Xlinker -rpath=$(CUDA_LIB))

# A chapter's planted faults (chapters/NN-slug/plants.tsv: NAME, variants, size, options, what,
# and optionally a sed expression): build/tests/plant/NN-slug/NAME/VARIANT is VARIANT.cu, edited
# by the expression where there is one, compiled with -DPLANT_NAME; make test on a GPU requires
# its check to fail (tests/plants.sh reads the file).
.SECONDEXPANSION:
plant_dir = chapters/$(word 1,$(subst /, ,$(1)))
$(BUILD)/tests/plant/%: $$(wildcard $$(call plant_dir,$$*)/*.cu $$(call plant_dir,$$*)/*.h $$(call plant_dir,$$*)/plants.tsv) tests/plants.sh $(LIBCOMMON) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	tests/plants.sh source $(call plant_dir,$*) $(word 2,$(subst /, ,$*)) $(@F) >$@.cu
	$(NVCC) $(NVCCFLAGS) $(GENCODE) $(WARN) -Xcompiler $(OPENMP) -Icommon -I$(call plant_dir,$*) -DPLANT_$(word 2,$(subst /, ,$*)) -DSOURCE_HASH='"planted"' $(NVCCFLAGS.$(word 1,$(subst /, ,$*)).$(@F)) $@.cu $(call plant_dir,$*)/problem.cu $(LIBCOMMON) -o $@ $(LDLIBS.$(word 1,$(subst /, ,$*)).$(@F)) $(if $(CUDA_LIB),-Xlinker -rpath=$(CUDA_LIB))

# Every roof on this GPU and the relations between them (tests/roofs/roofs.cu): run it on a GPU
# after changing common/roofs.cu.
$(BUILD)/tests/roofs: tests/roofs/roofs.cu $(LIBCOMMON) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(GENCODE) $(WARN) -Icommon $< $(LIBCOMMON) -o $@ $(if $(CUDA_LIB),-Xlinker -rpath=$(CUDA_LIB))

# make doctor's measurements (scripts/doctor-roofs.cu): the roofs, the SM clock under load, one
# core's memcpy.
$(BUILD)/doctor-roofs: scripts/doctor-roofs.cu $(LIBCOMMON) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(GENCODE) $(WARN) -Xcompiler $(OPENMP) -Icommon $< $(LIBCOMMON) -o $@ $(if $(CUDA_LIB),-Xlinker -rpath=$(CUDA_LIB))

-include $(wildcard $(BUILD)/*/*.d)

# --- Run ----------------------------------------------------------------------------------------
# `make chapter-` names no chapter; without this rule make tries chapter-.o by a built-in rule.
chapter- profile-:
	@echo "error: there is no chapter ''; chapters: $(foreach d,$(CHAPTER_DIRS),$(call chapter_nn,$d))" >&2; exit 2

# Without a GPU there is nothing to time: say so before building (the folder's own target,
# `make NN-slug`, builds without one).
chapter-%:
	@$(if $(call chapter_dir,$*),,$(call no_chapter,$*))
	@nvidia-smi -L >/dev/null 2>&1 || { echo "error: make $@ needs a CUDA GPU, and nvidia-smi sees none on this machine (make $(notdir $(call chapter_dir,$*)) only builds it)" >&2; exit 3; }
	+@$(MAKE) --no-print-directory $(notdir $(call chapter_dir,$*))
	@set -f; scripts/run-chapter.sh $(call chapter_dir,$*) $$ARGS

profile-%:
	@$(if $(call chapter_dir,$*),,$(call no_chapter,$*))
	@$(need_gpu)
	@$(call need_tool,ncu,Nsight Compute)
	+@$(MAKE) --no-print-directory $(notdir $(call chapter_dir,$*))
	@set -f; scripts/profile.sh $(call chapter_dir,$*) $$ARGS

# scripts/measure.sh measures; scripts/evidence.sh records the evidence of what was measured.
results:
	@$(need_chapters)
	@$(need_gpu)
	@$(call need_tool,ncu,Nsight Compute)
	+@$(MAKE) --no-print-directory $(notdir $(SELECTED))
	@scripts/measure.sh $(CHAPTER_ARGS)
	@scripts/evidence.sh $(CHAPTER_ARGS)

evidence:
	@$(need_chapters)
	@$(need_gpu)
	@$(call need_tool,ncu,Nsight Compute)
	+@$(MAKE) --no-print-directory $(notdir $(SELECTED))
	@scripts/evidence.sh $(CHAPTER_ARGS)

sanitize:
	@$(need_chapters)
	@$(need_gpu)
	@$(call need_tool,compute-sanitizer,the CUDA Compute Sanitizer)
	+@$(MAKE) --no-print-directory $(notdir $(SELECTED))
	@scripts/sanitize.sh $(SELECTED)

# GPU: whose results are "yours" (a GPU name or a unique part of a results file's name);
# empty: the GPU nvidia-smi names.
# The name goes through the environment, never through the shell's quoting: GPU="it's" is a name.
compare: export GUIDE_GPU = $(GPU)
compare:
	@python3 scripts/results.py compare $${GUIDE_GPU:+--gpu "$$GUIDE_GPU"}

# What moves the numbers here (scripts/guide/doctor.py): the GPU's state through nvidia-smi's
# queries and the roofs measured (build/doctor-roofs), then the figure behind each chapter of this
# GPU's results (GPU: another file's) that differs from a reference GPU's. It changes no setting.
doctor: export GUIDE_GPU = $(GPU)
doctor:
	@$(need_gpu)
	+@$(MAKE) --no-print-directory $(BUILD)/doctor-roofs
	@python3 scripts/results.py doctor --roofs $(BUILD)/doctor-roofs $${GUIDE_GPU:+--gpu "$$GUIDE_GPU"}

readme:
	@python3 scripts/results.py readme $(CHAPTER_DIRS)

unit:
	@tests/unit.sh

# `+`: the suite's own make calls share this make's job slots (make -j2 test).
test:
	@$(need_chapters)
	+@CHAPTERS="$(CHAPTER_ARGS)" tests/run.sh

deps:
	@scripts/install-deps.sh

-include book/book.mk

clean:
	rm -rf $(BUILD) book/out $(foreach d,$(CHAPTER_DIRS),$($(d)_PROGRAMS))

print-arch:
	@echo $(ARCH)

# The nvcc this Makefile uses (tests/run.sh asks, so the suite and the build agree).
print-nvcc:
	@echo $(NVCC)
