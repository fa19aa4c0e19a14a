//! Splits a command line given as one string (`--server 'python3 app.py --port 8000'`) into
//! argv the way a POSIX shell would, for quotes and backslashes only: no variables, no
//! globbing, no pipes. The result is run directly, never through `sh -c`.

/// Splits `text` into words: whitespace separates, `'…'` is literal, `"…"` keeps its content
/// with `\"`, `\\`, `\$` and `` \` `` unescaped, and a backslash outside quotes takes the next
/// character as it is. An unterminated quote or a trailing backslash is an error.
pub fn split(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(format!("unterminated single quote in `{text}`")),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some('\n') => {}
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(format!("unterminated double quote in `{text}`")),
                        },
                        Some(c) => word.push(c),
                        None => return Err(format!("unterminated double quote in `{text}`")),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(c) => {
                    in_word = true;
                    word.push(c);
                }
                None => return Err(format!("trailing backslash in `{text}`")),
            },
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn splits_like_a_shell_without_expanding_anything() {
        assert_eq!(split("  python3  app.py --port 8000 ").unwrap(), ["python3", "app.py", "--port", "8000"]);
        assert_eq!(split(r#"a 'b c' "d \"e\" \$HOME" f\ g"#).unwrap(), ["a", "b c", r#"d "e" $HOME"#, "f g"]);
        assert_eq!(split(r#"x"y"'z' '' "\n""#).unwrap(), ["xyz", "", r"\n"]);
        assert_eq!(split("echo * $HOME ;|").unwrap(), ["echo", "*", "$HOME", ";|"], "no globbing, no variables");
        assert!(split("").unwrap().is_empty());
        assert!(split("a 'b").unwrap_err().contains("unterminated single quote"));
        assert!(split("a \"b").unwrap_err().contains("unterminated double quote"));
        assert!(split("a \\").unwrap_err().contains("trailing backslash"));
    }
}
