# The book: `make book` builds book/out/book.pdf, html/ (the HTML edition), book.html, book.epub
# the chapters' READMEs and sources and the results files; `make book-check` builds and checks it.
# Included by the top-level Makefile. Paths are relative to the repository root.
#   RESULTS_DIR=dir   take the results files from dir instead of results/
#   BOOK_OUT=dir      write the book to dir instead of book/out

RESULTS_DIR ?= results
BOOK_OUT    ?= book/out

.PHONY: book book-check

book:
	@RESULTS_DIR='$(RESULTS_DIR)' BOOK_OUT='$(BOOK_OUT)' book/build.sh

book-check:
	@RESULTS_DIR='$(RESULTS_DIR)' BOOK_OUT='$(BOOK_OUT)' book/check.sh
