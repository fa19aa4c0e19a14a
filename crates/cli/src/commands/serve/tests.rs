use super::words;

#[test]
fn command_lines_split_like_a_shell_without_expanding_anything() {
    let split =
        |text: &str| words("server", text).map(|w| w.into_iter().map(|a| a.into_string().unwrap()).collect::<Vec<_>>());
    assert_eq!(split("  python3  app.py --port 8000 ").unwrap(), ["python3", "app.py", "--port", "8000"]);
    assert_eq!(split(r#"a 'b c' "d \"e\" \$HOME" f\ g"#).unwrap(), ["a", "b c", r#"d "e" $HOME"#, "f g"]);
    assert_eq!(split(r#"x"y"'z' '' "\n""#).unwrap(), ["xyz", "", r"\n"]);
    assert_eq!(split("echo * $HOME ;|").unwrap(), ["echo", "*", "$HOME", ";|"], "no globbing, no variables");
    assert_eq!(split("").unwrap_err(), "--server is empty");
    assert_eq!(split("a \\").unwrap(), ["a", "\\"], "a trailing backslash is kept");
    for broken in ["a 'b", "a \"b"] {
        assert!(split(broken).unwrap_err().starts_with("--server: "), "{broken}");
    }
}
