# The book: `make book` builds book/out/book.pdf, html/ (the HTML edition), book.html, book.epub
# the chapters' READMEs and sources and the results files; `make book-check` builds and checks it.
# Included by the top-level Makefile. Paths are relative to the repository root.
#   RESULTS_DIR=dir   take the results files from dir instead of results/
#   BOOK_OUT=dir      write the book to dir instead of book/out
#   BOOK_SOURCE_URL=url   the repository's published tree (e.g. https://github.com/OWNER/REPO/tree/main):
#                     each chapter then also links its folder there (book/book.lua reads it)
# The build runs again only when one of its inputs is newer than $(BOOK_OUT)/data.json, or the
# results folder, commit or BOOK_SOURCE_URL it names changed: a second `make book`,
# and book/check.sh after one, do nothing.

RESULTS_DIR ?= results
BOOK_OUT    ?= book/out
# A name with a space would be two words to make ("No rule to make target"): such files are left
# out of the inputs, and the build refuses them in one line (BOOK_SPACED).
BOOK_SPACED := $(shell cd $(call sq,$(RESULTS_DIR)) 2>/dev/null && ls -d -- *' '*.csv */*' '*.csv 2>/dev/null | head -n 1)
BOOK_INPUTS := $(filter-out book/check% book/README.md book/html/check.py book/html/probe.js book/html/cdp.py,$(wildcard book/*.* book/html/*.*)) \
    $(foreach f,$(wildcard scripts/*.py scripts/*/*.py common/*.* chapters/*/*.* $(RESULTS_DIR)/*.csv $(RESULTS_DIR)/*/*.csv),$(if $(wildcard $f),$f))
BOOK_VARS    = $(RESULTS_DIR) $(shell git rev-parse HEAD 2>/dev/null) $(BOOK_SOURCE_URL)

.PHONY: book book-check

book: $(BOOK_OUT)/built
	@echo "the book: $(BOOK_OUT)/book.pdf, $(BOOK_OUT)/html/index.html (also book.html, book.epub)"

# The data first (book/check.sh starts the checks that need only it beside the rest of the build).
$(BOOK_OUT)/data.json: $(BOOK_INPUTS) $(BOOK_OUT)/vars
	@$(if $(BOOK_SPACED),echo "error: "$(call sq,$(RESULTS_DIR)/$(BOOK_SPACED))": a results file's name has a space; rename it (make results names them without one)" >&2; exit 2)
	@RESULTS_DIR=$(call sq,$(RESULTS_DIR)) BOOK_OUT=$(call sq,$(BOOK_OUT)) book/build.sh --data-only

$(BOOK_OUT)/built: $(BOOK_OUT)/data.json
	@rm -f $@
	@RESULTS_DIR=$(call sq,$(RESULTS_DIR)) BOOK_OUT=$(call sq,$(BOOK_OUT)) book/build.sh --from-data
	@touch $@

$(BOOK_OUT)/vars: FORCE
	@mkdir -p $(@D)
	@echo $(call sq,$(BOOK_VARS)) | cmp -s - $@ || echo $(call sq,$(BOOK_VARS)) >$@

book-check:
	@RESULTS_DIR=$(call sq,$(RESULTS_DIR)) BOOK_OUT=$(call sq,$(BOOK_OUT)) book/check.sh
