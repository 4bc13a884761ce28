# The only entry point of the project. `make help` lists every target.

NVCC      ?= nvcc
CC        := gcc
# Build for the GPU in this machine; sm_90 (Hopper) where there is none.
ARCH      ?= $(shell nvidia-smi -L >/dev/null 2>&1 && echo native || echo sm_90)
NVCCFLAGS ?= -O3 -std=c++20 -lineinfo
# Omitted fields of a designated initializer are deliberate zeros.
WARN      := -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror,-Wno-missing-field-initializers
CFLAGS    ?= -O2 -std=c11 -Wall -Wextra -Werror -pedantic
BUILD     := build
CUDA_LIB  := $(dir $(shell which $(NVCC) 2>/dev/null))../lib64
RESULTS_COMMIT ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD -- chapters common 2>/dev/null || echo -dirty)

export RESULTS_COMMIT

CHAPTER_DIRS := $(sort $(patsubst %/problem.cu,%,$(wildcard chapters/[0-9][0-9]-*/problem.cu)))
COMMON_H     := $(wildcard common/*.h)
COMMON_OBJ   := $(patsubst common/%.c,$(BUILD)/common/%.o,$(wildcard common/*.c)) \
                $(patsubst common/%.cu,$(BUILD)/common/%.o,$(wildcard common/*.cu))
LIBCOMMON    := $(BUILD)/libcommon.a

.PHONY: all help test unit results sanitize readme deps clean print-arch
.DEFAULT_GOAL := help

help:
	@echo "make chapter-NN     build, verify and time chapter NN on this GPU (ARGS='--size 4096' passes options)"
	@echo "make all            build every chapter's programs"
	@echo "make results        measure every chapter (or CHAPTERS='20 13') into results/<gpu>.csv"
	@echo "make readme         regenerate the listings, diff and results blocks of every chapter README"
	@echo "make test           host unit tests, warnings-as-errors build, CLI and no-GPU checks,"
	@echo "                    results staleness, the book; on a GPU every chapter at small and odd sizes"
	@echo "make unit           host unit tests of the harness and the checker only"
	@echo "make sanitize       compute-sanitizer (memcheck, racecheck, initcheck, synccheck) on every chapter"
	@echo "                    (or CHAPTERS='20 13')"
	@echo "make profile-NN     Nsight Compute metrics of chapter NN, naive and optimized side by side"
	@echo "make book           book/out/book.pdf, book.html and book.epub from the chapters and results/"
	@echo "make book-check     build the book and check it (chapters, listings, numbers, HTML in Chromium)"
	@echo "make deps           install what the book needs (Debian packages; needs root)"
	@echo "make clean          remove build outputs"

all: $(LIBCOMMON)

$(BUILD)/common/%.o: common/%.c $(COMMON_H)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/common/%.o: common/%.cu $(COMMON_H)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -arch=$(ARCH) $(WARN) -c $< -o $@

$(LIBCOMMON): $(COMMON_OBJ)
	@rm -f $@
	ar rcs $@ $^

# One set of rules per chapter. A chapter may add chapters/NN-slug/chapter.mk
# with NVCCFLAGS.<NN-slug>.<variant> (extra compile flags of one program) and
# LDLIBS.<NN-slug>.<variant> (libraries of one program, such as -lcublas).
-include $(wildcard chapters/*/chapter.mk)

# The hash of a chapter's sources, written into every results row it produces.
source_files = $(sort $(wildcard $(1)/*.cu $(1)/*.h $(1)/*.c $(1)/chapter.mk))
source_hash  = $(shell cat $(call source_files,$(1)) | sha256sum | cut -c1-12)

define CHAPTER_RULES
$(1)_NAME := $(notdir $(1))
$(1)_HASH := $(call source_hash,$(1))
$(1)_PROGRAMS := $(patsubst %.cu,%,$(wildcard $(1)/naive.cu $(1)/optimized.cu $(1)/library.cu))

$(BUILD)/$(notdir $(1))/%.o: $(1)/%.cu $(call source_files,$(1)) $(COMMON_H)
	@mkdir -p $$(@D)
	$(NVCC) $(NVCCFLAGS) -arch=$(ARCH) $(WARN) -Icommon -I$(1) -DSOURCE_HASH='"$$($(1)_HASH)"' $$(NVCCFLAGS.$(notdir $(1)).$$*) -c $$< -o $$@

$(1)/%: $(BUILD)/$(notdir $(1))/%.o $(BUILD)/$(notdir $(1))/problem.o $(LIBCOMMON)
	$(NVCC) -arch=$(ARCH) $$^ -o $$@ $$(LDLIBS.$(notdir $(1)).$$*) -Xlinker -rpath=$(CUDA_LIB)

all: $$($(1)_PROGRAMS)
$(notdir $(1)): $$($(1)_PROGRAMS)
endef
$(foreach d,$(CHAPTER_DIRS),$(eval $(call CHAPTER_RULES,$(d))))

# chapter-5 means chapter-05.
chapter_dir = $(filter chapters/$(shell n=$$(echo '$(1)' | sed 's/^0*//'); printf '%02d' "$${n:-0}" 2>/dev/null)-%,$(CHAPTER_DIRS))

chapter-%:
	@d='$(call chapter_dir,$*)'; \
	if [ -z "$$d" ]; then echo "error: there is no chapter $* yet; chapters: $(notdir $(CHAPTER_DIRS))" >&2; exit 2; fi; \
	$(MAKE) --no-print-directory "$$(basename $$d)" && scripts/run-chapter.sh "$$d" $(ARGS)

profile-%:
	@d='$(call chapter_dir,$*)'; \
	if [ -z "$$d" ]; then echo "error: there is no chapter $*" >&2; exit 2; fi; \
	$(MAKE) --no-print-directory "$$(basename $$d)" && scripts/profile.sh "$$d" $(ARGS)

results: all
	@scripts/measure.sh $(CHAPTERS)

readme:
	@python3 scripts/results.py readme $(CHAPTER_DIRS)

unit:
	@tests/unit.sh

test:
	@tests/run.sh

sanitize: all
	@scripts/sanitize.sh $(if $(CHAPTERS),$(foreach n,$(CHAPTERS),$(call chapter_dir,$(n))),$(CHAPTER_DIRS))

deps:
	@scripts/install-deps.sh

-include book/book.mk

clean:
	rm -rf $(BUILD) $(foreach d,$(CHAPTER_DIRS),$($(d)_PROGRAMS))

print-arch:
	@echo $(ARCH)
