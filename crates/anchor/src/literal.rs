//! String and template literals decoded as JavaScript reads them, with a map from each
//! character of the value back to where it is written, so that an edit lands inside the
//! literal, in its own escapes.

/// A literal's value and, for every character boundary of the value, the byte offset in the
/// literal's source (quotes included) where that character starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub value: String,
    /// `(value byte, source byte)` at each character boundary, the end included.
    pub map: Vec<(usize, usize)>,
}

impl Decoded {
    /// Where in the source a character inserted at `value_at` goes; None inside a character.
    pub fn source_at(&self, value_at: usize) -> Option<usize> {
        self.map
            .iter()
            .rev()
            .find(|(v, _)| *v == value_at)
            .map(|(_, s)| *s)
    }
}

/// Decodes a literal as written (`"a\nb"`, `'x'`, `` `multi
/// line` ``), quotes included. The parser recovers from an unterminated literal with a
/// zero-width closing quote, so the text may end anywhere: what follows the opening quote is
/// kept.
pub fn decode(literal: &str) -> Decoded {
    let quote = literal
        .chars()
        .next()
        .filter(|c| matches!(c, '"' | '\'' | '`'));
    let open = quote.map_or(0, char::len_utf8);
    let body_end = match quote {
        Some(q) if literal.len() > open && literal.ends_with(q) => literal.len() - q.len_utf8(),
        _ => literal.len(),
    };
    let template = quote == Some('`');
    let body = &literal[open..body_end];
    let mut value = String::with_capacity(body.len());
    let mut map = Vec::with_capacity(body.len() + 1);
    let mut chars = body.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        map.push((value.len(), open + at));
        match c {
            '\\' => {
                let Some((_, e)) = chars.next() else {
                    value.push('\\');
                    continue;
                };
                match e {
                    'n' => value.push('\n'),
                    't' => value.push('\t'),
                    'r' => value.push('\r'),
                    'b' => value.push('\u{8}'),
                    'f' => value.push('\u{c}'),
                    'v' => value.push('\u{b}'),
                    '0' if chars.peek().is_none_or(|(_, d)| !d.is_ascii_digit()) => {
                        value.push('\0')
                    }
                    // A line continuation: nothing in the value.
                    '\n' | '\u{2028}' | '\u{2029}' => {}
                    '\r' => {
                        if chars.peek().is_some_and(|(_, d)| *d == '\n') {
                            chars.next();
                        }
                    }
                    'x' => match hex(&mut chars, 2) {
                        Some(ch) => value.push(ch),
                        None => value.push('x'),
                    },
                    'u' => {
                        let ch = if chars.peek().is_some_and(|(_, d)| *d == '{') {
                            chars.next();
                            let mut digits = String::new();
                            while let Some((_, d)) = chars.next_if(|(_, d)| *d != '}') {
                                digits.push(d);
                            }
                            chars.next();
                            u32::from_str_radix(&digits, 16)
                                .ok()
                                .and_then(char::from_u32)
                        } else {
                            hex(&mut chars, 4)
                        };
                        value.push(ch.unwrap_or('\u{fffd}'));
                    }
                    other => value.push(other),
                }
            }
            // A template's raw CR and CRLF are LF in its value.
            '\r' if template => {
                if chars.peek().is_some_and(|(_, d)| *d == '\n') {
                    chars.next();
                }
                value.push('\n');
            }
            c => value.push(c),
        }
    }
    map.push((value.len(), body_end));
    Decoded { value, map }
}

fn hex(chars: &mut std::iter::Peekable<std::str::CharIndices>, n: usize) -> Option<char> {
    let mut digits = String::new();
    for _ in 0..n {
        let (_, d) = chars.next_if(|(_, d)| d.is_ascii_hexdigit())?;
        digits.push(d);
    }
    u32::from_str_radix(&digits, 16)
        .ok()
        .and_then(char::from_u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_decode_and_map_back_to_where_they_are_written() {
        let d = decode(r#""a\nb\u0041\x42\u{1F600}c""#);
        assert_eq!(d.value, "a\nbAB\u{1F600}c");
        // Inserting after "a\n" lands after the escape, before `b`.
        assert_eq!(d.source_at(2), Some(4));
        assert_eq!(d.source_at(d.value.len()), Some(25));
    }

    #[test]
    fn a_line_continuation_is_nothing_and_a_template_keeps_its_newlines() {
        assert_eq!(decode("'a\\\nb'").value, "ab");
        assert_eq!(decode("`one\r\ntwo`").value, "one\ntwo");
        assert_eq!(decode("`x").value, "x");
    }
}
