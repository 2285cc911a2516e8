//! The PMML document read into a small element tree, refusing what a model
//! file never needs and a hostile file uses.
//!
//! quick-xml streams the events; this module keeps the element names,
//! attributes, text and the line each element starts on (for messages). It
//! refuses a `<!DOCTYPE` (so no DTD, no declared entity and no external
//! reference can exist), any entity reference other than XML's five predefined
//! ones and character references, documents above [`MAX_BYTES`] or nested
//! deeper than [`MAX_DEPTH`], more than [`MAX_ELEMENTS`] elements, a root other
//! than `PMML` in a PMML 4.x namespace, and prefixed (foreign-namespace)
//! elements or namespace re-declarations outside `Extension` subtrees (whose
//! content PMML leaves to the producer and cfx skips).

use crate::error::{Error, Result};
use quick_xml::XmlVersion;
use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;

/// The largest document read (bytes): a scorecard or a boosted model of a few
/// hundred trees is well below it; a larger file is refused before parsing.
pub const MAX_BYTES: usize = 64 << 20;
/// The deepest element nesting read (deep trees are written nested in PMML).
pub const MAX_DEPTH: usize = 512;
/// The most elements read.
pub const MAX_ELEMENTS: usize = 2_000_000;

/// The namespaces of PMML 4.0 to 4.4.
pub const NAMESPACES: [&str; 5] = [
    "http://www.dmg.org/PMML-4_0",
    "http://www.dmg.org/PMML-4_1",
    "http://www.dmg.org/PMML-4_2",
    "http://www.dmg.org/PMML-4_3",
    "http://www.dmg.org/PMML-4_4",
];

/// One element: its local name, attributes, text and children.
#[derive(Debug, Clone, Default)]
pub struct Element {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub text: String,
    pub children: Vec<Element>,
    /// The 1-based line of the element's start tag.
    pub line: usize,
}

impl Element {
    /// An attribute's value.
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The element named, with its line, as messages say it: `<Attribute> (line 12)`.
    pub fn at(&self) -> String {
        format!("<{}> (line {})", self.name, self.line)
    }

    /// A required attribute.
    pub fn req(&self, key: &str) -> Result<&str> {
        self.attr(key)
            .ok_or_else(|| fail(self, &format!("the attribute '{key}' is required")))
    }

    /// A numeric attribute (`default` when absent).
    pub fn num(&self, key: &str, default: Option<f64>) -> Result<Option<f64>> {
        match self.attr(key) {
            None => Ok(default),
            Some(v) => parse_number(v)
                .map(Some)
                .ok_or_else(|| fail(self, &format!("'{key}' = \"{v}\" is not a number"))),
        }
    }

    /// The children with this name.
    pub fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }

    /// The one child with this name, if any (two are refused).
    pub fn one<'a>(&'a self, name: &'a str) -> Result<Option<&'a Element>> {
        let mut it = self.all(name);
        let first = it.next();
        if let Some(second) = it.next() {
            return Err(fail(
                second,
                &format!("a second <{name}> inside {} is not allowed", self.at()),
            ));
        }
        Ok(first)
    }
}

/// An error naming the element and its line.
pub fn fail(e: &Element, msg: &str) -> Error {
    Error::Format(format!("PMML {}: {msg}", e.at()))
}

/// A PMML number (xs:double: also `INF`, `-INF`, `NaN`, which are refused as
/// model constants by their users).
pub fn parse_number(s: &str) -> Option<f64> {
    let t = s.trim();
    match t {
        "INF" => Some(f64::INFINITY),
        "-INF" => Some(f64::NEG_INFINITY),
        "NaN" => Some(f64::NAN),
        _ => {
            // Rust's parser also takes "inf"/"nan"/"infinity": not XML numbers.
            if t.is_empty()
                || t.chars()
                    .any(|c| c.is_ascii_alphabetic() && c != 'e' && c != 'E')
            {
                None
            } else {
                t.parse().ok()
            }
        }
    }
}

/// 1-based line of a byte offset.
fn line_of(starts: &[usize], pos: usize) -> usize {
    starts.partition_point(|&s| s <= pos)
}

fn is_extension(stack: &[Element]) -> bool {
    stack.iter().any(|e| e.name == "Extension")
}

/// Reads a PMML document into its root element (see the module docs).
pub fn parse(text: &str) -> Result<Element> {
    if text.len() > MAX_BYTES {
        return Err(Error::Format(format!(
            "PMML: the document has {} bytes, above cfx's limit of {MAX_BYTES}",
            text.len()
        )));
    }
    let mut starts = vec![0usize];
    starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    let mut reader = Reader::from_str(text);
    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    let mut count = 0usize;
    loop {
        let pos = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
        let line = line_of(&starts, pos.min(text.len()));
        let ev = reader.read_event().map_err(|e| {
            let at = usize::try_from(reader.error_position()).unwrap_or(0);
            Error::Format(format!(
                "PMML: not well-formed XML at line {}: {e}",
                line_of(&starts, at.min(text.len()))
            ))
        })?;
        match ev {
            Event::DocType(_) => {
                return Err(Error::Format(format!(
                    "PMML: a <!DOCTYPE> declaration at line {line} is refused: a model file \
                     needs no DTD, and a DTD's entities are how hostile XML expands or reads \
                     files"
                )));
            }
            Event::Start(s) | Event::Empty(s) if root.is_some() => {
                let _ = s;
                return Err(Error::Format(format!(
                    "PMML: a second root element at line {line}"
                )));
            }
            Event::Start(s) => {
                count += 1;
                if count > MAX_ELEMENTS || stack.len() >= MAX_DEPTH {
                    return Err(Error::Format(format!(
                        "PMML: the document exceeds cfx's limits ({MAX_ELEMENTS} elements, \
                         nesting {MAX_DEPTH}) at line {line}"
                    )));
                }
                let el = element(&s, line, &stack)?;
                stack.push(el);
            }
            Event::Empty(s) => {
                count += 1;
                if count > MAX_ELEMENTS {
                    return Err(Error::Format(format!(
                        "PMML: the document exceeds cfx's limit of {MAX_ELEMENTS} elements"
                    )));
                }
                let el = element(&s, line, &stack)?;
                match stack.last_mut() {
                    Some(p) => p.children.push(el),
                    None => root = Some(el),
                }
            }
            Event::End(_) => {
                let el = stack.pop().expect("quick-xml checks that end tags match");
                match stack.last_mut() {
                    Some(p) => p.children.push(el),
                    None => root = Some(el),
                }
            }
            Event::Text(t) => {
                let s = t
                    .decode()
                    .map_err(|e| Error::Format(format!("PMML: text at line {line}: {e}")))?;
                match stack.last_mut() {
                    Some(p) => p.text.push_str(&s),
                    None if s.trim().is_empty() => {}
                    None => {
                        return Err(Error::Format(format!(
                            "PMML: text outside the root element at line {line}"
                        )));
                    }
                }
            }
            Event::CData(t) => {
                let s = t
                    .decode()
                    .map_err(|e| Error::Format(format!("PMML: CDATA at line {line}: {e}")))?;
                if let Some(p) = stack.last_mut() {
                    p.text.push_str(&s);
                }
            }
            Event::GeneralRef(r) => {
                let c = match r.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    Ok(None) => {
                        let name = r.decode().unwrap_or_default().into_owned();
                        match quick_xml::escape::resolve_predefined_entity(&name) {
                            Some(v) => v.to_string(),
                            None => {
                                return Err(Error::Format(format!(
                                    "PMML: the entity reference '&{name};' at line {line} is \
                                     refused: cfx expands no entities but XML's five \
                                     predefined ones"
                                )));
                            }
                        }
                    }
                    Err(e) => {
                        return Err(Error::Format(format!(
                            "PMML: a bad character reference at line {line}: {e}"
                        )));
                    }
                };
                if let Some(p) = stack.last_mut() {
                    p.text.push_str(&c);
                }
            }
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
            Event::Eof => break,
        }
    }
    if let Some(open) = stack.last() {
        return Err(Error::Format(format!(
            "PMML: the document ends inside {} (truncated file?)",
            open.at()
        )));
    }
    let root = root.ok_or_else(|| Error::Format("PMML: the document has no element".into()))?;
    if root.name != "PMML" {
        return Err(fail(&root, "the root element must be <PMML>"));
    }
    match root.attr("xmlns") {
        Some(ns) if NAMESPACES.contains(&ns) => {}
        Some(ns) => {
            return Err(fail(
                &root,
                &format!(
                    "the namespace \"{ns}\" is not a PMML 4.x namespace (cfx reads {})",
                    NAMESPACES.join(", ")
                ),
            ));
        }
        None => {
            return Err(fail(
                &root,
                "no PMML namespace (xmlns=\"http://www.dmg.org/PMML-4_4\" expected)",
            ));
        }
    }
    Ok(root)
}

/// One start tag as an element (attributes unescaped, namespaces checked).
fn element(s: &BytesStart<'_>, line: usize, stack: &[Element]) -> Result<Element> {
    let qname = String::from_utf8_lossy(s.name().as_ref()).into_owned();
    let in_extension = is_extension(stack);
    if qname.contains(':') && !in_extension {
        return Err(Error::Format(format!(
            "PMML: the element <{qname}> at line {line} is in a foreign namespace (only \
             <Extension> may hold such content)"
        )));
    }
    let mut attrs = Vec::new();
    for a in s.attributes() {
        let a = a.map_err(|e| {
            Error::Format(format!(
                "PMML: a malformed attribute of <{qname}> at line {line}: {e}"
            ))
        })?;
        let key = String::from_utf8_lossy(a.key.as_ref()).into_owned();
        let value = a
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|e| {
                Error::Format(format!(
                    "PMML: the attribute '{key}' of <{qname}> at line {line}: {e} (cfx expands \
                     no entities but XML's five predefined ones)"
                ))
            })?
            .into_owned();
        if (key == "xmlns" || key.starts_with("xmlns:")) && !stack.is_empty() && !in_extension {
            let root_ns = stack[0].attr("xmlns").unwrap_or_default();
            if key != "xmlns" || value != root_ns {
                return Err(Error::Format(format!(
                    "PMML: <{qname}> at line {line} declares the namespace {key}=\"{value}\": \
                     foreign namespaces are read only inside <Extension>"
                )));
            }
        }
        attrs.push((key, value));
    }
    Ok(Element {
        name: qname,
        attrs,
        text: String::new(),
        children: Vec::new(),
        line,
    })
}

/// The tokens of a PMML `<Array>`: whitespace-separated, a token quoted with
/// `"` may hold spaces and `\"`.
pub fn array_tokens(e: &Element) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut chars = e.text.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let Some(&c) = chars.peek() else { break };
        let mut tok = String::new();
        if c == '"' {
            chars.next();
            let mut closed = false;
            while let Some(c) = chars.next() {
                match c {
                    '\\' if chars.peek() == Some(&'"') => {
                        tok.push('"');
                        chars.next();
                    }
                    '"' => {
                        closed = true;
                        break;
                    }
                    c => tok.push(c),
                }
            }
            if !closed {
                return Err(fail(e, "an unterminated quoted value"));
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() {
                    break;
                }
                tok.push(c);
                chars.next();
            }
        }
        out.push(tok);
    }
    if let Some(n) = e.num("n", None)? {
        if n != out.len() as f64 {
            return Err(fail(
                e,
                &format!("n = {n} but the array holds {} values", out.len()),
            ));
        }
    }
    Ok(out)
}
