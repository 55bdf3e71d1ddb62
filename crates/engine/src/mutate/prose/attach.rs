//! Placing new sentences in a description the way its author writes: after a one-line
//! description on the same line, as a new paragraph after paragraphs or a list, as a new line
//! after lines of prose; indented like the text around it, and before the whitespace a
//! template literal ends with. The original text stays, character for character.

/// `original` with `sentences` added at its end, in its style.
pub fn append(original: &str, sentences: &[String]) -> String {
    let addition = sentences.join(" ");
    if addition.is_empty() {
        return original.to_string();
    }
    let body = original.trim_end();
    if body.trim().is_empty() {
        return addition;
    }
    let tail = &original[body.len()..];
    let lines: Vec<&str> = body.lines().collect();
    let last = lines.last().copied().unwrap_or("").trim();
    let joined = if lines.len() == 1 {
        if last.ends_with(':') {
            format!("{body}\n\n{addition}")
        } else if ends_sentence(last) {
            format!("{body} {addition}")
        } else {
            format!("{body}. {addition}")
        }
    } else {
        let indent = indent_of(&lines);
        if body.contains("\n\n") || is_list_item(last) || last.ends_with(':') {
            format!("{body}\n\n{indent}{addition}")
        } else if ends_sentence(last) || last.ends_with([';', ',']) {
            format!("{body}\n{indent}{addition}")
        } else {
            // Lines of prose: the last one is ended before a new one starts.
            format!("{body}.\n{indent}{addition}")
        }
    };
    format!("{joined}{tail}")
}

/// `original` with `sentence` put first, in its style: on the same line before a one-line
/// description, as a paragraph of its own before several lines.
pub fn prepend(original: &str, sentence: &str) -> String {
    let rest = original.trim_start();
    if rest.is_empty() {
        return sentence.to_string();
    }
    let lead = &original[..original.len() - rest.len()];
    if !rest.trim_end().contains('\n') {
        return format!("{lead}{sentence} {rest}");
    }
    // Lines after the first carry the indentation; a first line that follows a newline in
    // the lead is indented by the lead itself.
    let indent = match lead.rfind('\n') {
        Some(at) => lead[at + 1..].to_string(),
        None => indent_of(&rest.lines().collect::<Vec<_>>()),
    };
    format!("{lead}{sentence}\n\n{indent}{rest}")
}

/// Whether a line ends a sentence already (so a new one follows after a space).
fn ends_sentence(line: &str) -> bool {
    let line = line.trim_end_matches(['"', '\'', '`', ')', ']', '*', '_']);
    line.ends_with(['.', '!', '?'])
}

pub fn is_list_item(line: &str) -> bool {
    let t = line.trim_start();
    if t.starts_with("- ") || t.starts_with("* ") || t.starts_with("• ") || t.starts_with("+ ") {
        return true;
    }
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && (t[digits..].starts_with(". ") || t[digits..].starts_with(") "))
}

/// The indentation a new paragraph takes: the smallest of the lines after the first (the
/// first often follows an opening quote on its line).
fn indent_of(lines: &[&str]) -> String {
    lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim().is_empty() && !is_list_item(l))
        .map(|l| &l[..l.len() - l.trim_start().len()])
        .min_by_key(|i| i.len())
        .unwrap_or("")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(s: &str) -> Vec<String> {
        vec![s.to_string()]
    }

    #[test]
    fn a_one_line_description_gets_the_sentence_on_its_line() {
        assert_eq!(
            append("Get the forecast.", &one("B.")),
            "Get the forecast. B."
        );
        assert_eq!(
            append("Get the forecast", &one("B.")),
            "Get the forecast. B."
        );
        assert_eq!(append("Options:", &one("B.")), "Options:\n\nB.");
        assert_eq!(append("", &one("B.")), "B.");
    }

    #[test]
    fn paragraphs_and_lists_get_a_new_paragraph_and_keep_the_closing_whitespace() {
        let list = "Do it.\n\nWhen:\n- one\n- two";
        assert_eq!(append(list, &one("B.")), format!("{list}\n\nB."));
        let template = "\n    Line one.\n    Line two.\n  ";
        assert_eq!(
            append(template, &one("B.")),
            "\n    Line one.\n    Line two.\n    B.\n  "
        );
    }

    #[test]
    fn a_first_sentence_goes_before_in_the_same_layout() {
        assert_eq!(prepend("Get it.", "A."), "A. Get it.");
        assert_eq!(
            prepend("\n    One.\n    Two.\n", "A."),
            "\n    A.\n\n    One.\n    Two.\n"
        );
        assert_eq!(prepend("One.\n- x", "A."), "A.\n\nOne.\n- x");
    }
}
