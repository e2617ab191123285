# rafale - plain Makefile. `make` builds ./rafale, `make test` runs every
# test (unit, integration, and the same under ASan+UBSan), `make demo` shows
# a short benchmark of the built-in server.

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN     = -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE
LDLIBS   = -ljansson -lssl -lcrypto -lm -pthread
SAN      = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

SRC      = $(wildcard src/*.c)
OBJ      = $(SRC:src/%.c=build/%.o)
LIBOBJ   = $(filter-out build/main.o,$(OBJ))
ASANOBJ  = $(SRC:src/%.c=build/asan/%.o)
ASANLIB  = $(filter-out build/asan/main.o,$(ASANOBJ))
UNITS    = $(patsubst tests/test_%.c,%,$(wildcard tests/test_*.c))

.PHONY: all deps test unit demo clean install bench bench-micro fuzz
all: rafale

rafale: $(OBJ)
	$(CC) $(CFLAGS) -o $@ $(OBJ) $(LDLIBS)

build/%.o: src/%.c | build
	$(CC) $(WARN) $(CFLAGS) -MMD -MP -c $< -o $@

build/asan/%.o: src/%.c | build/asan
	$(CC) $(WARN) $(SAN) -MMD -MP -c $< -o $@

build/asan/rafale: $(ASANOBJ)
	$(CC) $(SAN) -o $@ $(ASANOBJ) $(LDLIBS)

build/test_%: tests/test_%.c tests/t.h $(LIBOBJ)
	$(CC) $(WARN) $(CFLAGS) -o $@ $< $(LIBOBJ) $(LDLIBS)

build/asan/test_%: tests/test_%.c tests/t.h $(ASANLIB)
	$(CC) $(WARN) $(SAN) -o $@ $< $(ASANLIB) $(LDLIBS)

build build/asan:
	mkdir -p $@

-include $(OBJ:.o=.d) $(ASANOBJ:.o=.d)

# Installs missing Debian packages (as root), or prints the command to run.
deps:
	@sh scripts/deps.sh

unit: $(UNITS:%=build/test_%) $(UNITS:%=build/asan/test_%)

test: deps rafale build/asan/rafale unit
	@sh tests/run.sh

demo: deps rafale
	@sh scripts/demo.sh

# Peers side by side (installs wrk, ab, h2load, nginx): bench/RESULTS.md.
bench: rafale
	@sh bench/peers.sh

build/micro: bench/micro.c $(LIBOBJ)
	$(CC) $(WARN) $(CFLAGS) -o $@ $< $(LIBOBJ) $(LDLIBS)

bench-micro: build/micro
	@./build/micro

# Fuzz the response parser for FUZZ_SECONDS (clang's libFuzzer, ASan+UBSan).
FUZZ_SECONDS ?= 60
build/fuzz_http_parse: fuzz/fuzz_http_parse.c src/http_parse.c src/http_parse.h | build
	clang $(WARN) -g -O1 -fsanitize=fuzzer,address,undefined -o $@ fuzz/fuzz_http_parse.c src/http_parse.c

fuzz: build/fuzz_http_parse
	mkdir -p build/fuzz-corpus
	./build/fuzz_http_parse -max_total_time=$(FUZZ_SECONDS) build/fuzz-corpus fuzz/corpus

install: rafale
	install -D -m 755 rafale $(DESTDIR)$(PREFIX)/bin/rafale
	install -D -m 644 rafale.1 $(DESTDIR)$(PREFIX)/share/man/man1/rafale.1

PREFIX ?= /usr/local

clean:
	rm -rf build rafale
