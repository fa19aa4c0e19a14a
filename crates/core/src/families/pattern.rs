//! How a family rule's pattern matches a kernel name: contains, exact (`=`), word start (`~`)
//! or parts in order (`*`).

/// How a rule's pattern matches a name; patterns are stored lower-case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Pattern {
    Contains(String),
    Sequence(Vec<String>),
    Exact(String),
    Word(String),
}

impl Pattern {
    pub(super) fn parse(spec: &str) -> Option<Pattern> {
        let spec = spec.trim().to_ascii_lowercase();
        let pattern = if let Some(rest) = spec.strip_prefix('=') {
            Pattern::Exact(rest.to_owned())
        } else if let Some(rest) = spec.strip_prefix('~') {
            Pattern::Word(rest.to_owned())
        } else if spec.contains('*') {
            let parts: Vec<String> = spec.split('*').filter(|p| !p.is_empty()).map(str::to_owned).collect();
            return (!parts.is_empty()).then_some(Pattern::Sequence(parts));
        } else {
            Pattern::Contains(spec)
        };
        match &pattern {
            Pattern::Exact(p) | Pattern::Word(p) | Pattern::Contains(p) if p.is_empty() => None,
            _ => Some(pattern),
        }
    }

    pub(super) fn matches(&self, name: &str, lower: &str) -> bool {
        match self {
            Pattern::Contains(p) => lower.contains(p.as_str()),
            Pattern::Exact(p) => lower == p,
            Pattern::Sequence(parts) => {
                let mut rest = lower;
                parts.iter().all(|part| match rest.find(part.as_str()) {
                    Some(at) => {
                        rest = &rest[at + part.len()..];
                        true
                    }
                    None => false,
                })
            }
            Pattern::Word(p) => {
                let bytes = name.as_bytes();
                lower.match_indices(p.as_str()).any(|(at, _)| word_start(bytes, at))
            }
        }
    }
}

fn word_start(bytes: &[u8], at: usize) -> bool {
    let Some(prev) = at.checked_sub(1).and_then(|i| bytes.get(i)) else { return true };
    let here = bytes.get(at).copied().unwrap_or(b' ');
    !prev.is_ascii_alphanumeric() || (here.is_ascii_uppercase() && prev.is_ascii_lowercase())
}
