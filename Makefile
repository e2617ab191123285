# rafale - plain Makefile. `make` builds ./rafale, `make test` runs every
# test (unit, integration, and the same under ASan+UBSan), `make demo` shows
# a short benchmark of the built-in server.

# As many jobs as CPUs unless the command line says (-j1 to read one
# compiler's errors alone): `make demo` and `make test` on a fresh clone
# build both builds at once rather than a file at a time.
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif

CC      ?= cc
# -flto: the engine is split in files along its seams (conn, http1, record);
# link-time optimization inlines across them again.
CFLAGS  ?= -O2 -g -flto=auto
WARN     = -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE
LDLIBS   = -ljansson -lnghttp2 -lssl -lcrypto -lm -pthread
# HTTP/3 (QUIC through ngtcp2 with GnuTLS, and nghttp3) is built when
# pkg-config finds the three libraries (`make deps` installs them; HTTP3=no
# leaves it out). Only the files named *http3*/*_h3* call them, so a move to
# another version of their API touches those alone.
H3PKG    = libngtcp2 libngtcp2_crypto_gnutls libnghttp3 gnutls
# The packages come first: what is installed decides what is built, and
# make chooses its sources as it reads this file. So the deps step
# (scripts/deps.sh, which installs what is missing) is an included makefile,
# build/.deps: make brings it up to date before anything else, once, even
# under -j, and reads this file again with the packages in place; a fresh
# machine's first `make demo` builds HTTP/3. Goals that build nothing skip it,
# and so does a dry run (make -n would run it: make remakes its makefiles).
ifneq ($(filter-out clean deps layout format,$(or $(MAKECMDGOALS),all)),)
ifeq ($(findstring n,$(firstword -$(MAKEFLAGS))),)
include build/.deps
endif
endif
ifndef HTTP3
HTTP3   := $(shell pkg-config --exists $(H3PKG) 2>/dev/null && echo yes)
endif
ifeq ($(HTTP3),yes)
WARN    += -DRAFALE_HTTP3 $(shell pkg-config --cflags $(H3PKG))
LDLIBS  += $(shell pkg-config --libs $(H3PKG))
endif
# float-cast-overflow: a double read from a file and cast to an integer it
# cannot hold is undefined; UBSan does not check it unless asked.
SAN      = -O1 -g -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=all
# The parsers of untrusted bytes again under clang's integer checks (unsigned
# wrap and lossy conversions too, which C allows but a parser should not do).
INTSAN   = clang -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -g -O1 -fsanitize=integer,undefined -fno-sanitize-recover=all

# Folders are programs and the rooms they share: base/ (shared pieces),
# result/ (a run's result: the figures the engine fills, what was observed
# around them, the findings), client/ (the load generator), serve/ (the
# target server), observe/ (the server monitor), options/ (the option table
# and the command line's parse), report/ (every report of a run, findings,
# merge), run/ (one observed run: monitor, engine, findings), compare/
# (compare, diff, calibrate, verdicts), cli/ (main, the subcommands, live
# views). Each folder compiles seeing only the folders it may use, so the
# compiler itself refuses a circle:
#   base <- serve, observe, options <- result <- client, report <- run <- compare <- cli
# (serve <- options for serve's settings, serve_config.h, alone; cli sees
# serve too). scripts/check_layout.sh checks the rest, and that this
# comment names every folder in an order the INC_* lines keep.
H3SRC    = $(wildcard src/*/*http3*.c src/*/*_h3*.c)
SRC      = $(if $(filter yes,$(HTTP3)),$(wildcard src/*/*.c),$(filter-out $(H3SRC),$(wildcard src/*/*.c)))
OBJ      = $(SRC:src/%.c=build/%.o)
LIBOBJ   = $(filter-out build/cli/main.o,$(OBJ))
ASANOBJ  = $(SRC:src/%.c=build/asan/%.o)
ASANLIB  = $(filter-out build/asan/cli/main.o,$(ASANOBJ))
# The unit tests mirror src/: tests/FOLDER/test_MODULE.c, built as
# build/tests/FOLDER/test_MODULE (and under build/asan/).
UNITSRC  = $(wildcard tests/*/test_*.c)
UNITS    = $(patsubst tests/%.c,%,$(if $(filter yes,$(HTTP3)),$(UNITSRC),$(filter-out $(wildcard tests/*/test_*h3*.c tests/*/test_*http3*.c),$(UNITSRC))))
INC_base   = -Isrc/base
INC_result = -Isrc/base -Isrc/observe -Isrc/result
INC_client = -Isrc/base -Isrc/result -Isrc/client
INC_serve  = -Isrc/base -Isrc/serve
INC_observe = -Isrc/base -Isrc/observe
INC_options = -Isrc/base -Isrc/serve -Isrc/options
INC_report  = -Isrc/base -Isrc/result -Isrc/observe -Isrc/options -Isrc/report
INC_run     = -Isrc/base -Isrc/result -Isrc/observe -Isrc/report -Isrc/client -Isrc/run
INC_compare = $(INC_report) -Isrc/client -Isrc/run -Isrc/compare
INC_cli     = $(INC_compare) -Isrc/serve -Isrc/cli
# The include path of the folder a source is in: src/FOLDER/file.c.
inc = $(INC_$(word 2,$(subst /, ,$1)))

.PHONY: all deps test unit units demo clean install man bench bench-h3 bench-micro fuzz mpi perf-check format layout deb \
        saved-expected
all: rafale

rafale: $(OBJ)
	$(CC) $(CFLAGS) -o $@ $(OBJ) $(LDLIBS)

# The objects hold their machine code beside LTO's (fat): the unit tests
# link it as it is (-fno-lto), rather than each an LTO link of the whole
# library (test_engine took 7.5 s); the compile then also warns of what
# only code generation sees (LTO's, at the link, has no -Wall).
OBJFLAGS = $(CFLAGS) -ffat-lto-objects
# Objects are made again when how they are compiled changes: the stamp is
# written as this file is read (when it differs; not by a dry run nor a goal
# that builds nothing), so an up-to-date make still says so.
ifneq ($(filter-out clean deps layout format,$(or $(MAKECMDGOALS),all)),)
ifeq ($(findstring n,$(firstword -$(MAKEFLAGS))),)
$(shell mkdir -p build; echo '$(CC) $(OBJFLAGS)' | cmp -s - build/.objflags || echo '$(CC) $(OBJFLAGS)' > build/.objflags)
endif
endif
build/.objflags:
	@mkdir -p build
	@echo '$(CC) $(OBJFLAGS)' > $@

build/%.o: src/%.c build/.objflags
	@mkdir -p $(@D)
	$(CC) $(WARN) $(call inc,$<) $(OBJFLAGS) -MMD -MP -c $< -o $@

build/asan/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(WARN) $(call inc,$<) $(SAN) -MMD -MP -c $< -o $@

# Its build, as every result's "environment" says it.
build/base/machine.o: WARN += -DRAFALE_BUILD='"$(CC) $(CFLAGS)"'
build/asan/base/machine.o: WARN += -DRAFALE_BUILD='"$(CC) $(SAN)"'

build/asan/rafale: $(ASANOBJ)
	$(CC) $(SAN) -o $@ $(ASANOBJ) $(LDLIBS)

# The unit tests link the library as an archive, so each takes only the
# objects it calls (its link 5 times faster than all of them), and their own
# code is built at -O0 (3 times faster): the code under test is the library's,
# built as rafale's is. About 60 CPU s less in a fresh build.
build/librafale.a: $(LIBOBJ)
	@rm -f $@
	$(AR) rcs $@ $(LIBOBJ)

build/asan/librafale.a: $(ASANLIB)
	@rm -f $@
	$(AR) rcs $@ $(ASANLIB)

build/tests/%: tests/%.c tests/t.h build/librafale.a
	@mkdir -p $(@D)
	$(CC) $(WARN) $(INC_cli) $(CFLAGS) -fno-lto -O0 -MMD -MP -MF $(@D)/.$(@F).d -o $@ $< build/librafale.a $(LDLIBS)

build/asan/tests/%: tests/%.c tests/t.h build/asan/librafale.a
	@mkdir -p $(@D)
	$(CC) $(WARN) $(INC_cli) $(SAN) -O0 -MMD -MP -MF $(@D)/.$(@F).d -o $@ $< build/asan/librafale.a $(LDLIBS)

build/int/test_http_parse: tests/base/test_http_parse.c tests/t.h src/base/http_parse.c src/base/http_parse.h src/base/http_lex.h | build/int
	$(INTSAN) $(INC_base) -o $@ tests/base/test_http_parse.c src/base/http_parse.c

build/int/test_http_req: tests/serve/test_http_req.c tests/t.h src/serve/http_req.c src/serve/http_req.h src/base/http_lex.h | build/int
	$(INTSAN) $(INC_serve) -o $@ tests/serve/test_http_req.c src/serve/http_req.c

build/int/test_accesslog: tests/base/test_accesslog.c tests/t.h src/base/accesslog.c src/base/accesslog.h | build/int
	$(INTSAN) $(INC_base) -o $@ tests/base/test_accesslog.c src/base/accesslog.c

# rafale-mpi: the same objects but the three that -DRAFALE_MPI changes (the
# MPI glue, its command and main), compiled by mpicc; the plain rafale never
# links MPI. `make mpi` installs MPICH.
MPICC   ?= mpicc
MPISRC   = $(filter src/cli/mpi_glue.c src/cli/cmd_mpi.c src/cli/main.c,$(SRC))
MPIOBJ   = $(filter-out $(MPISRC:src/%.c=build/%.o),$(OBJ)) $(MPISRC:src/%.c=build/mpi/%.o)

mpi:
	@sh scripts/deps.sh mpich libmpich-dev
	$(MAKE) rafale-mpi

rafale-mpi: $(MPIOBJ)
	$(MPICC) $(CFLAGS) -o $@ $(MPIOBJ) $(LDLIBS)

build/mpi/%.o: src/%.c
	@mkdir -p $(@D)
	$(MPICC) $(WARN) $(call inc,$<) $(CFLAGS) -DRAFALE_MPI -MMD -MP -c $< -o $@

build build/int:
	mkdir -p $@

# A unit test's headers too (tests/client/fixture.h, tests/report/known_run.h...),
# in a hidden file beside it: build/tests/*/test_* are the programs.
UNITDEP  = $(foreach u,$(UNITS),$(dir $(u)).$(notdir $(u)).d)
-include $(OBJ:.o=.d) $(ASANOBJ:.o=.d) $(MPIOBJ:.o=.d) $(UNITDEP:%=build/tests/%) $(UNITDEP:%=build/asan/tests/%)

# Installs missing Debian packages (as root), or prints the command to run.
# As a prerequisite (test, demo) it runs after build/.deps's, never beside it.
deps:
	@sh scripts/deps.sh

# The deps step (see HTTP3 above): an empty makefile once the packages are in.
build/.deps: scripts/deps.sh
	@sh scripts/deps.sh
	@mkdir -p build && touch $@

units: $(UNITS:%=build/tests/%) $(UNITS:%=build/asan/tests/%) build/int/test_http_parse build/int/test_http_req \
         build/int/test_accesslog

# The edit loop: the unit tests (plain, sanitized, integer-checked) and the
# layout, in seconds.
unit: units
	@sh tests/run.sh --unit

# Everything; `make test T=NAME` only the unit programs and integration tests
# whose name holds NAME (both builds), JOBS=N at most N integration tests at once.
test: deps rafale build/asan/rafale units rafale-mpi
	@T='$(T)' JOBS='$(JOBS)' sh tests/run.sh

# The expected outputs of the saved runs of tests/data/saved/ (reports,
# merge, diff, CSV, HdrHistogram), written again by this build: only when
# an output is meant to change (saved_runs_report_the_same and
# test_saved_runs hold them byte for byte; commit the diff it makes).
saved-expected: rafale build/tests/report/test_saved_runs
	python3 tests/integ/saved_runs.py --write ./rafale
	./build/tests/report/test_saved_runs --write

# The man page's option lists from the option table (rafale --man-options),
# the text under each heading kept (scripts/man.py; a test checks them).
man: rafale
	@python3 scripts/man.py ./rafale rafale.1

# The folders' rules the compiler cannot see (scripts/check_layout.sh), and
# the sizes a reader can hold: files of 800 lines at most, functions of 120
# (scripts/check_sizes.py).
layout:
	@sh scripts/check_layout.sh
	@python3 scripts/check_sizes.py

# .clang-format describes the style; clang-format 14 cannot keep the
# hand-aligned trailing comments of the older code (10% of its lines would
# move), so `make format` formats only the lines changed since HEAD.
format:
	@sh scripts/deps.sh clang-format
	@git diff -U0 --no-color HEAD -- 'src/*.c' 'src/*.h' 'tests/*.c' 'fuzz/*.c' | clang-format-diff -p1 -i

demo: deps rafale
	@sh scripts/demo.sh

# Peers side by side (installs wrk, ab, h2load, nginx): bench/RESULTS.md.
bench: rafale build/floor
	@sh scripts/deps.sh liburing-dev
	@$(MAKE) -s build/floor_uring
	@sh bench/peers.sh
	@if [ "$(HTTP3)" = yes ]; then sh scripts/deps.sh ngtcp2-client && python3 bench/h3.py; fi

# HTTP/3 alone: rafale --http3 against ngtcp2's gtlsclient and rafale --http2.
bench-h3: rafale
	@sh scripts/deps.sh ngtcp2-client
	@python3 bench/h3.py

# The least a client can cost (bench/floor.c): what the bench compares against.
build/floor: bench/floor.c bench/floor.h src/base/rxstamp.c src/base/rxstamp.h | build
	$(CC) $(WARN) -Isrc/base -O2 -o $@ bench/floor.c src/base/rxstamp.c

# The same floor on io_uring (liburing): does io_uring lower it on this kernel?
build/floor_uring: bench/floor_uring.c bench/floor.h | build
	$(CC) $(WARN) -O2 -o $@ bench/floor_uring.c -luring

build/micro: bench/micro.c $(LIBOBJ)
	$(CC) $(WARN) $(INC_cli) $(CFLAGS) -o $@ $< $(LIBOBJ) $(LDLIBS)

bench-micro: build/micro
	@./build/micro

# Instructions per request (callgrind), against bench/perf-check.ref.
perf-check:
	@sh scripts/perf_check.sh

# Fuzz the parsers of untrusted bytes for FUZZ_SECONDS each (clang's
# libFuzzer, ASan+UBSan): the response parser, serve's request parser, and
# serve's HTTP/2 side (its frames, through nghttp2, and its answers), and
# its HTTP/3 side (through nghttp3) when built with HTTP/3.
FUZZ_SECONDS ?= 60
FUZZ_CC = clang $(WARN) $(INC_cli) -g -O1 -fsanitize=fuzzer,address,undefined
build/fuzz_http_parse: fuzz/fuzz_http_parse.c src/base/http_parse.c src/base/http_parse.h src/base/http_lex.h | build
	$(FUZZ_CC) -o $@ fuzz/fuzz_http_parse.c src/base/http_parse.c

build/fuzz_http_req: fuzz/fuzz_http_req.c src/serve/http_req.c src/serve/http_req.h src/base/http_lex.h | build
	$(FUZZ_CC) -o $@ fuzz/fuzz_http_req.c src/serve/http_req.c

H2FUZZ_SRC = src/serve/serve_h2.c src/serve/serve_stream.c src/serve/serve_reply.c src/base/buf.c src/base/status.c \
             src/base/err.c
build/fuzz_serve_h2: fuzz/fuzz_serve_h2.c $(H2FUZZ_SRC) src/serve/serve_h2.h src/serve/serve_int.h | build
	$(FUZZ_CC) -o $@ fuzz/fuzz_serve_h2.c $(H2FUZZ_SRC) -lnghttp2 -lm

# serve's HTTP/3 side (nghttp3's frames and QPACK, and its answers), when built with HTTP/3.
H3FUZZ_SRC = src/serve/serve_h3.c src/serve/serve_stream.c src/serve/serve_reply.c src/base/buf.c src/base/http3_write.c \
             src/base/status.c src/base/err.c
build/fuzz_serve_h3: fuzz/fuzz_serve_h3.c fuzz/serve_h3_offline.h $(H3FUZZ_SRC) src/serve/serve_h3_int.h src/serve/serve_int.h | build
	$(FUZZ_CC) -o $@ fuzz/fuzz_serve_h3.c $(H3FUZZ_SRC) $(shell pkg-config --libs $(H3PKG)) -lm

TGFUZZ_SRC = src/options/targets.c $(addprefix src/base/,err.c template.c config.c proto.c url.c buf.c net.c slo.c status.c units.c stats.c hist.c \
             check.c jpath.c request.c http_parse.c text.c)
build/fuzz_targets: fuzz/fuzz_targets.c $(TGFUZZ_SRC) src/options/targets.h src/base/template.h | build
	$(FUZZ_CC) -o $@ fuzz/fuzz_targets.c $(TGFUZZ_SRC)

build/fuzz_accesslog: fuzz/fuzz_accesslog.c src/base/accesslog.c src/base/accesslog.h | build
	$(FUZZ_CC) -o $@ fuzz/fuzz_accesslog.c src/base/accesslog.c

build/fuzz_cookie: fuzz/fuzz_cookie.c src/client/cookie.c src/client/cookie.h | build
	$(FUZZ_CC) -o $@ fuzz/fuzz_cookie.c src/client/cookie.c

# rafale merge reads saved results with most of the program behind it.
MERGEFUZZ_SRC = $(filter-out src/cli/main.c,$(SRC))
build/fuzz_merge: fuzz/fuzz_merge.c $(MERGEFUZZ_SRC) | build
	$(FUZZ_CC) -o $@ fuzz/fuzz_merge.c $(MERGEFUZZ_SRC) $(LDLIBS)

fuzz:
	@sh scripts/deps.sh clang
	$(MAKE) build/fuzz_http_parse build/fuzz_http_req build/fuzz_serve_h2 build/fuzz_targets build/fuzz_cookie \
	    build/fuzz_merge build/fuzz_accesslog
	mkdir -p build/fuzz-corpus build/fuzz-corpus-req build/fuzz-corpus-h2 build/fuzz-corpus-targets \
	    build/fuzz-corpus-cookie build/fuzz-corpus-merge build/fuzz-corpus-accesslog
	./build/fuzz_http_parse -max_total_time=$(FUZZ_SECONDS) build/fuzz-corpus fuzz/corpus
	./build/fuzz_http_req -max_total_time=$(FUZZ_SECONDS) build/fuzz-corpus-req fuzz/corpus_req
	./build/fuzz_serve_h2 -max_total_time=$(FUZZ_SECONDS) build/fuzz-corpus-h2 fuzz/corpus_h2
	./build/fuzz_targets -max_total_time=$(FUZZ_SECONDS) build/fuzz-corpus-targets fuzz/corpus_targets
	./build/fuzz_cookie -max_total_time=$(FUZZ_SECONDS) build/fuzz-corpus-cookie fuzz/corpus_cookie
	./build/fuzz_accesslog -max_total_time=$(FUZZ_SECONDS) build/fuzz-corpus-accesslog fuzz/corpus_accesslog
	./build/fuzz_merge -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=1024 build/fuzz-corpus-merge fuzz/corpus_merge
	if [ "$(HTTP3)" = yes ]; then $(MAKE) build/fuzz_serve_h3 && mkdir -p build/fuzz-corpus-h3 && \
	    ./build/fuzz_serve_h3 -max_total_time=$(FUZZ_SECONDS) build/fuzz-corpus-h3 fuzz/corpus_h3; fi

# A Debian package of what is built: rafale (and rafale-mpi when built),
# the man page, completions for bash, zsh and fish, README and copyright.
deb: rafale
	@sh scripts/deb.sh .

# rafale, its man page and its completions, where each shell looks under
# PREFIX: zsh in Debian's vendor-completions for /usr, else site-functions;
# fish in PREFIX/share only when XDG_DATA_DIRS names it (desktop sessions
# do; otherwise PREFIX=/usr, or FISHCOMPDIR=~/.config/fish/completions).
PREFIX ?= /usr/local
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/$(if $(filter /usr,$(PREFIX)),vendor-completions,site-functions)
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
install: rafale
	install -D -m 755 rafale $(DESTDIR)$(PREFIX)/bin/rafale
	install -D -m 644 rafale.1 $(DESTDIR)$(PREFIX)/share/man/man1/rafale.1
	@mkdir -p build/completion
	./rafale completion bash > build/completion/rafale
	./rafale completion zsh > build/completion/_rafale
	./rafale completion fish > build/completion/rafale.fish
	install -D -m 644 build/completion/rafale $(DESTDIR)$(BASHCOMPDIR)/rafale
	install -D -m 644 build/completion/_rafale $(DESTDIR)$(ZSHCOMPDIR)/_rafale
	install -D -m 644 build/completion/rafale.fish $(DESTDIR)$(FISHCOMPDIR)/rafale.fish

clean:
	rm -rf build rafale rafale-mpi
