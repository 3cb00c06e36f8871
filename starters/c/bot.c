/* c-starter: a Callbreak bot in C99 (libc only) for the platform's stdio-json protocol
 * (see docs/protocol.md; the message shapes are bot.proto's, as in the other starter kits).
 *
 * It reads one JSON object a line on stdin (a callbreak.v1.RefereeMessage: proto field
 * names, every field present, enums by name, integers as numbers, only the active oneof
 * member) and writes one JSON object a line on stdout (a BotMessage), flushed at once.
 * It answers "hello" with its own hello and every "decision" with exactly one decision reply
 * echoing the request's id; events need no reply. stderr is its log. It exits at the end of
 * stdin.
 *
 * It calls a rough estimate of its sure tricks and plays its lowest legal card unless it is
 * last to play and can win the trick cheaply. It keeps no state between decisions.
 * The strategy lives in choose_call and choose_card: edit those.
 */
#define _POSIX_C_SOURCE 200809L /* SIGPIPE */

#include <signal.h>
#include <stdio.h>
#include <string.h>

static const char *NAME = "c-starter";
static const char *VERSION = "1.0.0";
static const char *RANKS = "23456789TJQKA";

#define MAX_LINE (64 * 1024) /* the longest line the referee sends */
#define MAX_DEPTH 64         /* JSON nesting the scanner accepts */
#define MAX_CARDS 64         /* cards kept from one list (a hand has 13) */
#define CARD_LEN 8           /* bytes kept of one card string, NUL included ("AS" needs 3) */

/* ---------------------------------------------------------------------------------------
 * Strategy
 * ------------------------------------------------------------------------------------- */

typedef struct {
  int n;
  char c[MAX_CARDS][CARD_LEN];
} Cards;

/* What one decision request says (missing fields read as zero / empty). */
typedef struct {
  unsigned long long id;
  char kind[32];
  Cards hand;
  Cards current; /* cards of the trick in progress, in play order */
  Cards legal;
  long long min_call, max_call;
} Request;

/* Rank index 0..12 (2 low, A high); -1 for a malformed card. */
static int rank(const char *card) {
  const char *r = card[0] ? strchr(RANKS, card[0]) : NULL;
  return r ? (int)(r - RANKS) : -1;
}

static char suit(const char *card) { return card[0] ? card[1] : '\0'; }

/* Does `card` beat `best`, the card heading a trick (so of the led suit or a spade)? */
static int beats(const char *card, const char *best) {
  if (suit(card) == suit(best)) return rank(card) > rank(best);
  return suit(card) == 'S';
}

/* Aces, kings, and every spade beyond the third, clamped to the legal range. */
static long long choose_call(const Request *req) {
  long long high = 0, spades = 0, call;
  int i;
  for (i = 0; i < req->hand.n; i++) {
    const char *c = req->hand.c[i];
    if (c[0] == 'A' || c[0] == 'K') high++;
    if (suit(c) == 'S') spades++;
  }
  call = high + (spades > 3 ? spades - 3 : 0);
  if (call < req->min_call) call = req->min_call;
  if (call > req->max_call) call = req->max_call;
  return call;
}

/* Lowest first; among equal ranks a side suit before a spade (spades are trumps). */
static int cheaper(const char *a, const char *b) {
  if (rank(a) != rank(b)) return rank(a) < rank(b);
  return (suit(a) == 'S') < (suit(b) == 'S');
}

/* Writes the chosen card to out (req->legal is not empty). */
static void choose_card(const Request *req, char out[CARD_LEN]) {
  Cards legal = req->legal;
  int i, j;
  for (i = 1; i < legal.n; i++) { /* insertion sort: stable, and the lists are short */
    char tmp[CARD_LEN];
    memcpy(tmp, legal.c[i], CARD_LEN);
    for (j = i; j > 0 && cheaper(tmp, legal.c[j - 1]); j--) memcpy(legal.c[j], legal.c[j - 1], CARD_LEN);
    memcpy(legal.c[j], tmp, CARD_LEN);
  }
  if (req->current.n == 3) {
    const char *best = req->current.c[0];
    for (i = 0; i < req->current.n; i++)
      if (beats(req->current.c[i], best)) best = req->current.c[i];
    for (i = 0; i < legal.n; i++)
      if (beats(legal.c[i], best)) { /* the cheapest winner */
        memcpy(out, legal.c[i], CARD_LEN);
        return;
      }
  }
  memcpy(out, legal.c[0], CARD_LEN);
}

/* ---------------------------------------------------------------------------------------
 * A small JSON scanner: the line is checked once (skip_value over all of it), then values
 * are found by key. Unknown keys are skipped; nesting is bounded; nothing is allocated.
 * ------------------------------------------------------------------------------------- */

static const char *ws(const char *p) {
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
  return p;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

static int is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* p at '"': the byte after the closing quote, or NULL. */
static const char *skip_string(const char *p) {
  p++;
  for (;;) {
    unsigned char c = (unsigned char)*p;
    if (c == '\0' || c < 0x20) return NULL; /* end of line, or a raw control character */
    if (c == '"') return p + 1;
    if (c == '\\') {
      p++;
      if (*p == 'u') {
        int k;
        for (k = 1; k <= 4; k++)
          if (!is_hex(p[k])) return NULL;
        p += 5;
      } else if (*p && strchr("\"\\/bfnrt", *p)) {
        p++;
      } else {
        return NULL;
      }
    } else {
      p++;
    }
  }
}

static const char *skip_number(const char *p) {
  if (*p == '-') p++;
  if (!is_digit(*p)) return NULL;
  while (is_digit(*p)) p++;
  if (*p == '.') {
    p++;
    if (!is_digit(*p)) return NULL;
    while (is_digit(*p)) p++;
  }
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '+' || *p == '-') p++;
    if (!is_digit(*p)) return NULL;
    while (is_digit(*p)) p++;
  }
  return p;
}

/* p at a value (after white space): the byte after it, or NULL if it is not JSON. */
static const char *skip_value(const char *p, int depth) {
  if (depth > MAX_DEPTH) return NULL;
  switch (*p) {
    case '"':
      return skip_string(p);
    case '{':
      p = ws(p + 1);
      if (*p == '}') return p + 1;
      for (;;) {
        if (*p != '"' || !(p = skip_string(p))) return NULL;
        p = ws(p);
        if (*p != ':') return NULL;
        if (!(p = skip_value(ws(p + 1), depth + 1))) return NULL;
        p = ws(p);
        if (*p == '}') return p + 1;
        if (*p != ',') return NULL;
        p = ws(p + 1);
      }
    case '[':
      p = ws(p + 1);
      if (*p == ']') return p + 1;
      for (;;) {
        if (!(p = skip_value(p, depth + 1))) return NULL;
        p = ws(p);
        if (*p == ']') return p + 1;
        if (*p != ',') return NULL;
        p = ws(p + 1);
      }
    case 't':
      return strncmp(p, "true", 4) ? NULL : p + 4;
    case 'f':
      return strncmp(p, "false", 5) ? NULL : p + 5;
    case 'n':
      return strncmp(p, "null", 4) ? NULL : p + 4;
    default:
      return skip_number(p);
  }
}

/* The value of member `key` of the object at obj (NULL: no such member, or not an object).
 * Keys are compared as written, so a key spelled with escapes does not match. */
static const char *member(const char *obj, const char *key) {
  size_t len = strlen(key);
  const char *p;
  if (!obj || *obj != '{') return NULL;
  p = ws(obj + 1);
  while (*p == '"') {
    const char *k = p + 1, *end = skip_string(p);
    const char *v;
    if (!end) return NULL;
    p = ws(end);
    if (*p != ':') return NULL;
    v = ws(p + 1);
    if ((size_t)(end - 1 - k) == len && memcmp(k, key, len) == 0) return v;
    if (!(p = skip_value(v, 1))) return NULL;
    p = ws(p);
    if (*p != ',') return NULL;
    p = ws(p + 1);
  }
  return NULL;
}

/* A non-negative integer (0 for anything else, or on overflow). */
static unsigned long long as_u64(const char *v) {
  unsigned long long n = 0;
  if (!v || !is_digit(*v)) return 0;
  for (; is_digit(*v); v++) {
    unsigned d = (unsigned)(*v - '0');
    if (n > (18446744073709551615ULL - d) / 10) return 0;
    n = n * 10 + d;
  }
  return (*v == '.' || *v == 'e' || *v == 'E') ? 0 : n;
}

static long long as_int(const char *v) {
  unsigned long long n;
  if (v && *v == '-') {
    n = as_u64(v + 1);
    return n > 9223372036854775807ULL ? 0 : -(long long)n;
  }
  n = as_u64(v);
  return n > 9223372036854775807ULL ? 0 : (long long)n;
}

/* The string at v decoded into out (at most size-1 bytes; a \u escape beyond ASCII reads as
 * '?'); "" for anything but a string. */
static void as_string(const char *v, char *out, size_t size) {
  size_t n = 0;
  const char *end;
  if (size == 0) return;
  out[0] = '\0';
  if (!v || *v != '"' || !(end = skip_string(v))) return;
  for (v++; v < end - 1 && n + 1 < size; v++) {
    char c = *v;
    if (c == '\\') {
      c = *++v;
      switch (c) {
        case 'b': c = '\b'; break;
        case 'f': c = '\f'; break;
        case 'n': c = '\n'; break;
        case 'r': c = '\r'; break;
        case 't': c = '\t'; break;
        case 'u': {
          unsigned code = 0;
          int k;
          for (k = 1; k <= 4; k++) {
            char h = v[k];
            code = code * 16 + (unsigned)(is_digit(h) ? h - '0' : (h | 0x20) - 'a' + 10);
          }
          v += 4;
          c = code < 0x80 ? (char)code : '?';
          break;
        }
        default: break; /* '"', '\\', '/' stand for themselves */
      }
    }
    out[n++] = c;
  }
  out[n] = '\0';
}

/* The strings of the array at v (other elements skipped; at most MAX_CARDS kept). */
static void as_cards(const char *v, Cards *out) {
  out->n = 0;
  if (!v || *v != '[') return;
  v = ws(v + 1);
  while (*v && *v != ']') {
    const char *next = skip_value(v, 1);
    if (!next) return;
    if (*v == '"' && out->n < MAX_CARDS) as_string(v, out->c[out->n++], CARD_LEN);
    v = ws(next);
    if (*v == ',') v = ws(v + 1);
  }
}

/* ---------------------------------------------------------------------------------------
 * Plumbing: lines in, lines out
 * ------------------------------------------------------------------------------------- */

/* `s` as a JSON string literal on stdout. */
static void put_quoted(const char *s) {
  putchar('"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      putchar('\\');
      putchar(c);
    } else if (c < 0x20) {
      printf("\\u%04x", c);
    } else {
      putchar(c);
    }
  }
  putchar('"');
}

static void hello_reply(void) {
  fputs("{\"hello\":{\"protocol\":\"callbreak.v1\",\"name\":", stdout);
  put_quoted(NAME);
  fputs(",\"version\":", stdout);
  put_quoted(VERSION);
  fputs("}}\n", stdout);
}

static void decision_reply(const char *d) {
  Request req;
  const char *obs = member(d, "observation");
  memset(&req, 0, sizeof req);
  req.id = as_u64(member(d, "id"));
  as_string(member(d, "kind"), req.kind, sizeof req.kind);
  as_cards(member(obs, "hand"), &req.hand);
  as_cards(member(member(obs, "current"), "cards"), &req.current);
  as_cards(member(d, "legal_cards"), &req.legal);
  req.min_call = as_int(member(d, "min_call"));
  req.max_call = as_int(member(d, "max_call"));

  printf("{\"decision\":{\"id\":%llu,", req.id); /* echo the id unchanged */
  if (strcmp(req.kind, "CALL") == 0) {
    long long call = choose_call(&req);
    printf("\"call\":%lld}}\n", call < 0 ? 0 : call);
  } else if (strcmp(req.kind, "PLAY") == 0 && req.legal.n > 0) {
    char card[CARD_LEN];
    choose_card(&req, card);
    fputs("\"card\":", stdout);
    put_quoted(card);
    fputs("}}\n", stdout);
  } else {
    fputs("\"error\":{\"type\":\"UnknownDecision\","
          "\"message\":\"cannot answer this kind of decision\"}}}\n", stdout);
  }
}

/* Reads one line (without its newline) into buf, at most MAX_LINE bytes: returns its length,
 * -1 at the end of input, -2 for a longer line (read to its end and dropped). */
static long read_line(char *buf) {
  long n = 0;
  int c, any = 0, too_long = 0;
  while ((c = getchar()) != EOF) {
    any = 1;
    if (c == '\n') break;
    if (n < MAX_LINE)
      buf[n++] = (char)c;
    else
      too_long = 1;
  }
  buf[n] = '\0';
  if (!any) return -1;
  return too_long ? -2 : n;
}

int main(void) {
  static char line[MAX_LINE + 1];
  long n;
#ifdef SIGPIPE
  signal(SIGPIPE, SIG_IGN); /* a closed stdout shows up as a write error below */
#endif
  fprintf(stderr, "%s: reading stdin\n", NAME);
  while ((n = read_line(line)) != -1) {
    const char *msg, *end, *d;
    if (n == -2) {
      fprintf(stderr, "%s: skipped a line over %d bytes\n", NAME, MAX_LINE);
      continue;
    }
    if ((long)strlen(line) != n) {
      fprintf(stderr, "%s: a line with a NUL byte, ignored\n", NAME);
      continue;
    }
    msg = ws(line);
    if (*msg == '\0') continue;
    end = skip_value(msg, 0);
    if (!end || *ws(end) != '\0' || *msg != '{') {
      fprintf(stderr, "%s: a line that is not a JSON object, ignored\n", NAME);
      continue;
    }
    if (member(msg, "hello")) {
      hello_reply();
    } else if ((d = member(msg, "decision")) != NULL) {
      decision_reply(d);
    } else {
      continue; /* events (and anything newer) need no reply; this bot ignores them */
    }
    /* One line, flushed at once: the referee is waiting for it. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
      fprintf(stderr, "%s: stdout closed\n", NAME);
      return 0;
    }
  }
  fprintf(stderr, "%s: stdin ended, exiting\n", NAME);
  return 0;
}
