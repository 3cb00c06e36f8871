//! rust-starter: a Callbreak bot in Rust (std only) for the platform's stdio-json protocol
//! (see docs/protocol.md and the message shapes in bot.proto of the other starter kits).
//!
//! It reads one JSON object a line on stdin (a `callbreak.v1.RefereeMessage`: proto field
//! names, every field present, enums by name, integers as numbers, only the active oneof
//! member), and writes one JSON object a line on stdout (a `BotMessage`), flushed at once.
//! It answers `hello` with its own hello and every `decision` with exactly one decision
//! reply echoing the request's id; events need no reply. stderr is its log. It exits when
//! stdin ends.
//!
//! It calls a rough estimate of its sure tricks and plays its lowest legal card unless it is
//! last to play and can win the trick cheaply. It keeps no state between decisions.
//! The strategy lives in `choose_call` and `choose_card`: edit those.

use std::io::{self, BufRead, Write};

const NAME: &str = "rust-starter";
const VERSION: &str = "1.0.0";
const RANKS: &[u8] = b"23456789TJQKA";
/// The longest line the referee sends (and the longest the platform accepts back).
const MAX_LINE: usize = 64 * 1024;

// ---------------------------------------------------------------------------------------
// Strategy
// ---------------------------------------------------------------------------------------

/// What one decision request says (missing fields read as zero / empty).
struct Request {
    id: u64,
    kind: String,
    hand: Vec<String>,
    current: Vec<String>, // cards of the trick in progress, in play order
    legal: Vec<String>,
    min_call: i64,
    max_call: i64,
}

/// Rank index 0..12 (2 low, A high); -1 for a malformed card.
fn rank(card: &str) -> i32 {
    match card.as_bytes().first() {
        Some(r) => RANKS.iter().position(|x| x == r).map_or(-1, |i| i as i32),
        None => -1,
    }
}

fn suit(card: &str) -> u8 {
    card.as_bytes().get(1).copied().unwrap_or(b'?')
}

/// Does `card` beat `best`, the card heading a trick (so of the led suit or a spade)?
fn beats(card: &str, best: &str) -> bool {
    if suit(card) == suit(best) {
        return rank(card) > rank(best);
    }
    suit(card) == b'S'
}

/// Aces, kings, and every spade beyond the third, clamped to the legal range.
fn choose_call(req: &Request) -> i64 {
    let mut high = 0i64;
    let mut spades = 0i64;
    for c in &req.hand {
        let r = c.as_bytes().first().copied();
        if r == Some(b'A') || r == Some(b'K') {
            high += 1;
        }
        if suit(c) == b'S' {
            spades += 1;
        }
    }
    let mut call = high + (spades - 3).max(0);
    call = call.max(req.min_call);
    call = call.min(req.max_call);
    call
}

/// Lowest first; among equal ranks a side suit before a spade (spades are trumps).
fn cheaper_key(card: &str) -> (i32, bool) {
    (rank(card), suit(card) == b'S')
}

fn choose_card(req: &Request) -> String {
    let mut legal = req.legal.clone();
    legal.sort_by_key(|c| cheaper_key(c)); // stable
    if req.current.len() == 3 {
        let mut best = req.current[0].as_str();
        for c in &req.current {
            if beats(c, best) {
                best = c;
            }
        }
        if let Some(c) = legal.iter().find(|c| beats(c, best)) {
            return c.clone(); // the cheapest winner
        }
    }
    legal[0].clone() // the caller made sure legal is not empty
}

/// The reply line (without its newline) to a decision request.
fn reply(req: &Request) -> String {
    let mv = if req.kind == "CALL" {
        format!("\"call\":{}", choose_call(req).max(0))
    } else if req.kind == "PLAY" && !req.legal.is_empty() {
        format!("\"card\":{}", quote(&choose_card(req)))
    } else {
        "\"error\":{\"type\":\"UnknownDecision\",\"message\":\"cannot answer this kind of decision\"}"
            .to_string()
    };
    format!("{{\"decision\":{{\"id\":{},{}}}}}", req.id, mv) // echo the id unchanged
}

fn hello_reply() -> String {
    format!(
        "{{\"hello\":{{\"protocol\":\"callbreak.v1\",\"name\":{},\"version\":{}}}}}",
        quote(NAME),
        quote(VERSION)
    )
}

// ---------------------------------------------------------------------------------------
// Plumbing: lines in, lines out
// ---------------------------------------------------------------------------------------

fn main() {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut line = Vec::with_capacity(4096);
    eprintln!("{}: reading stdin", NAME);
    loop {
        match read_line(&mut input, &mut line) {
            Ok(Line::Eof) => break,
            Ok(Line::TooLong) => {
                eprintln!("{}: skipped a line over {} bytes", NAME, MAX_LINE);
                continue;
            }
            Ok(Line::Text) => {}
            Err(e) => {
                eprintln!("{}: cannot read stdin: {}", NAME, e);
                break;
            }
        }
        if line.iter().all(|b| b.is_ascii_whitespace()) {
            continue;
        }
        let answer = match parse(&line) {
            Ok(msg) => answer(&msg),
            Err(e) => {
                eprintln!("{}: a line that is not JSON ({}), ignored", NAME, e);
                None
            }
        };
        if let Some(text) = answer {
            // One line, flushed at once: the referee is waiting for it.
            if writeln!(out, "{}", text).and_then(|_| out.flush()).is_err() {
                eprintln!("{}: stdout closed", NAME);
                break;
            }
        }
    }
    eprintln!("{}: stdin ended, exiting", NAME);
}

/// The reply to one RefereeMessage, if it needs one.
fn answer(msg: &Json) -> Option<String> {
    if msg.get("hello").is_some() {
        return Some(hello_reply());
    }
    if let Some(d) = msg.get("decision") {
        let obs = d.field("observation");
        let req = Request {
            id: d.field("id").as_u64(),
            kind: d.field("kind").as_str().to_string(),
            hand: obs.field("hand").strings(),
            current: obs.field("current").field("cards").strings(),
            legal: d.field("legal_cards").strings(),
            min_call: d.field("min_call").as_i64(),
            max_call: d.field("max_call").as_i64(),
        };
        return Some(reply(&req));
    }
    None // events (and anything newer) need no reply; this bot ignores them
}

enum Line {
    Text,
    TooLong,
    Eof,
}

/// Read one line (without its newline) into `buf`, keeping at most MAX_LINE bytes: a longer
/// line is read to its end and reported as TooLong, never stored whole.
fn read_line<R: BufRead>(input: &mut R, buf: &mut Vec<u8>) -> io::Result<Line> {
    buf.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let (done, used) = {
            let chunk = match input.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                // EOF: a last line without a newline still counts.
                return Ok(if !any {
                    Line::Eof
                } else if too_long {
                    Line::TooLong
                } else {
                    Line::Text
                });
            }
            any = true;
            let (part, done, used) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (&chunk[..i], true, i + 1),
                None => (chunk, false, chunk.len()),
            };
            if !too_long {
                if buf.len() + part.len() > MAX_LINE {
                    too_long = true;
                    buf.clear();
                } else {
                    buf.extend_from_slice(part);
                }
            }
            (done, used)
        };
        input.consume(used);
        if done {
            return Ok(if too_long { Line::TooLong } else { Line::Text });
        }
    }
}

/// `s` as a JSON string literal.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

// ---------------------------------------------------------------------------------------
// A small JSON parser: enough for these messages, and safe on anything else (no panics,
// bounded nesting, unknown keys kept and ignored).
// ---------------------------------------------------------------------------------------

#[allow(dead_code)] // Bool is parsed but this strategy reads none (rules.must_trump is one)
enum Json {
    Null,
    Bool(bool),
    Num(String), // the number's text, so a uint64 id keeps every digit
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

static NULL: Json = Json::Null;

impl Json {
    /// The member `key` of an object (None for a missing key or a non-object).
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Like `get`, but a missing member reads as null (so lookups chain).
    fn field(&self, key: &str) -> &Json {
        self.get(key).unwrap_or(&NULL)
    }

    fn as_str(&self) -> &str {
        match self {
            Json::Str(s) => s,
            _ => "",
        }
    }

    fn as_u64(&self) -> u64 {
        match self {
            Json::Num(t) | Json::Str(t) => t.parse::<u64>().ok().or_else(|| {
                t.parse::<f64>()
                    .ok()
                    .filter(|f| f.is_finite() && *f >= 0.0 && f.fract() == 0.0)
                    .map(|f| f as u64)
            }),
            _ => None,
        }
        .unwrap_or(0)
    }

    fn as_i64(&self) -> i64 {
        match self {
            Json::Num(t) | Json::Str(t) => t.parse::<i64>().ok().or_else(|| {
                t.parse::<f64>()
                    .ok()
                    .filter(|f| f.is_finite() && f.fract() == 0.0)
                    .map(|f| f as i64)
            }),
            _ => None,
        }
        .unwrap_or(0)
    }

    /// A boolean (false for anything else), e.g. `hello.rules.must_trump`.
    #[allow(dead_code)]
    fn as_bool(&self) -> bool {
        matches!(self, Json::Bool(true))
    }

    /// A double (0 for anything else), e.g. an entry of `observation.scores`.
    #[allow(dead_code)]
    fn as_f64(&self) -> f64 {
        match self {
            Json::Num(t) => t.parse::<f64>().unwrap_or(0.0),
            _ => 0.0,
        }
    }

    /// The strings of an array (other elements skipped; a non-array reads as empty).
    fn strings(&self) -> Vec<String> {
        match self {
            Json::Arr(items) => items
                .iter()
                .filter_map(|v| match v {
                    Json::Str(s) => Some(s.clone()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }
}

const MAX_DEPTH: usize = 64;

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

fn parse(text: &[u8]) -> Result<Json, String> {
    let mut p = Parser { s: text, i: 0 };
    let v = p.value(0)?;
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("trailing bytes at {}", p.i));
    }
    Ok(v)
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("{} at byte {}", what, self.i))
    }

    fn literal(&mut self, word: &[u8], v: Json) -> Result<Json, String> {
        if self.s.len() >= self.i + word.len() && &self.s[self.i..self.i + word.len()] == word {
            self.i += word.len();
            Ok(v)
        } else {
            self.err("unexpected token")
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, String> {
        if depth > MAX_DEPTH {
            return self.err("nested too deeply");
        }
        self.ws();
        match self.peek() {
            None => self.err("unexpected end"),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(Json::Str),
            Some(b't') => self.literal(b"true", Json::Bool(true)),
            Some(b'f') => self.literal(b"false", Json::Bool(false)),
            Some(b'n') => self.literal(b"null", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => self.err("unexpected character"),
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json, String> {
        self.i += 1; // '{'
        let mut members = Vec::new();
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(Json::Obj(members));
        }
        loop {
            self.ws();
            if self.peek() != Some(b'"') {
                return self.err("expected a key");
            }
            let key = self.string()?;
            self.ws();
            if self.peek() != Some(b':') {
                return self.err("expected ':'");
            }
            self.i += 1;
            let v = self.value(depth + 1)?;
            members.push((key, v));
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Json::Obj(members));
                }
                _ => return self.err("expected ',' or '}'"),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Json, String> {
        self.i += 1; // '['
        let mut items = Vec::new();
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(Json::Arr(items));
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Json::Arr(items));
                }
                _ => return self.err("expected ',' or ']'"),
            }
        }
    }

    fn number(&mut self) -> Result<Json, String> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        let digits = |p: &mut Parser| {
            let from = p.i;
            while let Some(b'0'..=b'9') = p.peek() {
                p.i += 1;
            }
            p.i > from
        };
        if !digits(self) {
            return self.err("bad number");
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if !digits(self) {
                return self.err("bad number");
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            if !digits(self) {
                return self.err("bad number");
            }
        }
        // Only ASCII digits and signs were consumed, so this is valid UTF-8.
        Ok(Json::Num(
            String::from_utf8_lossy(&self.s[start..self.i]).into_owned(),
        ))
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let mut v = 0u32;
        for _ in 0..4 {
            let d = match self.peek() {
                Some(c @ b'0'..=b'9') => (c - b'0') as u32,
                Some(c @ b'a'..=b'f') => (c - b'a' + 10) as u32,
                Some(c @ b'A'..=b'F') => (c - b'A' + 10) as u32,
                _ => return self.err("bad \\u escape"),
            };
            v = v * 16 + d;
            self.i += 1;
        }
        Ok(v)
    }

    fn string(&mut self) -> Result<String, String> {
        self.i += 1; // opening quote
        let mut out: Vec<u8> = Vec::new();
        loop {
            match self.peek() {
                None => return self.err("unterminated string"),
                Some(b) if b < 0x20 => return self.err("control character in a string"),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(String::from_utf8_lossy(&out).into_owned());
                }
                Some(b'\\') => {
                    self.i += 1;
                    let e = match self.peek() {
                        Some(e) => e,
                        None => return self.err("unterminated string"),
                    };
                    self.i += 1;
                    let ch: char = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi)
                                && self.s.get(self.i) == Some(&b'\\')
                                && self.s.get(self.i + 1) == Some(&b'u')
                            {
                                let save = self.i;
                                self.i += 2;
                                let lo = self.hex4()?;
                                if (0xDC00..0xE000).contains(&lo) {
                                    0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                                } else {
                                    self.i = save; // not a pair: keep the next escape
                                    0xFFFD
                                }
                            } else {
                                hi
                            };
                            char::from_u32(code).unwrap_or('\u{FFFD}')
                        }
                        _ => return self.err("bad escape"),
                    };
                    let mut tmp = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
                }
                Some(b) => {
                    out.push(b);
                    self.i += 1;
                }
            }
        }
    }
}
