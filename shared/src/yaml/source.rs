//! YAML text into documents that remember where each value came from.
//!
//! [`parse_documents`] reads one or more `---`-separated documents with yaml-rust2's event
//! parser and builds, from the same events, each document's [`yaml_serde::Value`] and an
//! index of positions beside it. A finding about `managedNodeGroups[1].subnets` can then be
//! reported at a line and column even though the checks only ever see the value.
//!
//! Documents are read as eksctl and kubectl read them (sigs.k8s.io/yaml on go-yaml v2): plain
//! scalars resolve by YAML 1.1 rules (`yes`, `on` and `y` are booleans, `012` is octal,
//! `1_000` an integer, `2012-10-17` stays a string), and `<<` merge keys merge. The tests
//! hold this reader to a table of go-yaml v2's resolutions.
//!
//! Untrusted text cannot exhaust the stack or memory: nesting deeper than
//! [`MAX_NESTING_DEPTH`] and alias expansion beyond [`MAX_ALIAS_EXPANSION`] nodes are errors
//! with a position, like any other malformed input.

use std::fmt;
use std::str::FromStr;

use yaml_rust2::parser::{Event, Parser, Tag as EventTag};
use yaml_rust2::scanner::{Marker, ScanError, TScalarStyle};
use yaml_serde::value::{Tag, TaggedValue};
use yaml_serde::{Number, Value};

use super::node::Node;
use super::tree::{
    self, Builder, Child, Entry, OpenEntries, Place, Put, Tree, TreeNode, saturated,
};

/// Deepest nesting of sequences and mappings a document may have.
///
/// The same limit yaml_serde applies, so anything accepted here also deserialises there;
/// and every recursive walk over a [`Value`] (including its `Drop`) stays shallow.
pub const MAX_NESTING_DEPTH: usize = 128;

/// Most nodes that aliases (`*name`) may copy into one document.
///
/// Each alias copies the anchored value, so a few lines of nested aliases can expand to
/// billions of nodes ("billion laughs"); a real cluster file copies a few hundred.
pub const MAX_ALIAS_EXPANSION: usize = 100_000;

/// Aliases may copy at most this many times the text's own bytes into its documents (or
/// [`MIN_ALIAS_EXPANSION_BYTES`], when that is more).
///
/// Nodes alone are no bound: one alias of a 100 KB string copies 100 KB, so 2,000 of them
/// in a 108 KB file would make 200 MB. Counting bytes keeps what a document holds within a
/// few times the size of its text.
pub const ALIAS_EXPANSION_BYTES_PER_TEXT_BYTE: usize = 4;

/// The bytes aliases may copy into a small text's documents.
pub const MIN_ALIAS_EXPANSION_BYTES: usize = 4 * 1024 * 1024;

/// What a node counts for in [`ALIAS_EXPANSION_BYTES_PER_TEXT_BYTE`] beyond its text.
const NODE_BYTES: usize = 16;

/// What a value holds, counted as the alias limit counts it: the bytes of its scalars and
/// [`NODE_BYTES`] for each node. A text of N bytes reads into values of at most
/// `(1 + NODE_BYTES) × N` bytes of its own plus what aliases copy
/// (`max(MIN_ALIAS_EXPANSION_BYTES, ALIAS_EXPANSION_BYTES_PER_TEXT_BYTE × N)`), which
/// the fuzz targets hold the reader to.
pub fn counted_bytes(value: &Value) -> usize {
    NODE_BYTES
        + match value {
            Value::Null => 0,
            Value::Bool(_) => 4,
            Value::Number(number) => number.to_string().len(),
            Value::String(text) => text.len(),
            Value::Sequence(items) => items.iter().map(counted_bytes).sum(),
            Value::Mapping(mapping) => mapping
                .iter()
                .map(|(key, value)| counted_bytes(key) + counted_bytes(value))
                .sum(),
            Value::Tagged(tagged) => counted_bytes(&tagged.value),
        }
}

/// The most bytes ([`counted_bytes`]) the documents of a text of `text_bytes` bytes may hold.
pub fn byte_budget(text_bytes: usize) -> usize {
    (1 + NODE_BYTES) * (text_bytes + 1)
        + (ALIAS_EXPANSION_BYTES_PER_TEXT_BYTE * text_bytes).max(MIN_ALIAS_EXPANSION_BYTES)
}

/// A place in the text: 1-based line and 1-based column (counted in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    /// Line number, the first line is 1.
    pub line: usize,
    /// Column number in characters, the first column is 1.
    pub column: usize,
}

impl Position {
    fn from_marker(marker: &Marker) -> Position {
        // yaml-rust2 counts lines from 1 but columns from 0.
        Position {
            line: marker.line(),
            column: marker.col() + 1,
        }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}:{}", self.line, self.column)
    }
}

/// Malformed or refused YAML, with the place it was noticed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlError {
    /// Line of the problem, from 1.
    pub line: usize,
    /// Column of the problem, from 1.
    pub column: usize,
    /// What is wrong, in plain words (no position inside).
    pub message: String,
}

impl YamlError {
    fn at(position: Position, message: impl Into<String>) -> YamlError {
        YamlError {
            line: position.line,
            column: position.column,
            message: message.into(),
        }
    }

    fn from_scan(error: &ScanError) -> YamlError {
        let position = Position::from_marker(error.marker());
        // The scanner reads ahead and has its own limit (255 flow levels); say the same as
        // when ours is reached first.
        match error.info() {
            "recursion limit exceeded" => nesting_error(position),
            info => YamlError::at(position, info),
        }
    }

    /// The line and column as a [`Position`].
    pub fn position(&self) -> Position {
        Position {
            line: self.line,
            column: self.column,
        }
    }
}

impl fmt::Display for YamlError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for YamlError {}

/// One step of a [`YamlPath`]: a mapping key or a sequence index.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PathSegment {
    /// The entry of a mapping with this key.
    Key(String),
    /// The item of a sequence at this index, from 0.
    Index(usize),
}

/// A path into a YAML document, such as `managedNodeGroups[1].subnets`.
///
/// Displayed with dots between keys and brackets around indices; a key that is not made of
/// letters, digits, `_` and `-` only is written quoted in brackets, as in
/// `labels["karpenter.sh/capacity-type"]`. The root path displays as the empty string.
/// [`FromStr`] reads the same notation back, and also accepts any key without `.`, `[`, `]`
/// or `"` unquoted (`labels.example.com/team`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct YamlPath {
    segments: Vec<PathSegment>,
}

impl YamlPath {
    /// The path of the document itself.
    pub fn root() -> YamlPath {
        YamlPath::default()
    }

    /// Appends a mapping key.
    pub fn push_key(&mut self, key: impl Into<String>) {
        self.segments.push(PathSegment::Key(key.into()));
    }

    /// Appends a sequence index.
    pub fn push_index(&mut self, index: usize) {
        self.segments.push(PathSegment::Index(index));
    }

    /// This path with a mapping key appended.
    pub fn with_key(&self, key: impl Into<String>) -> YamlPath {
        let mut path = self.clone();
        path.push_key(key);
        path
    }

    /// This path with a sequence index appended.
    pub fn with_index(&self, index: usize) -> YamlPath {
        let mut path = self.clone();
        path.push_index(index);
        path
    }

    /// Removes and returns the last segment.
    pub fn pop(&mut self) -> Option<PathSegment> {
        self.segments.pop()
    }

    /// The segments from the root down.
    pub fn segments(&self) -> &[PathSegment] {
        &self.segments
    }

    /// Whether this is the path of the whole document.
    pub fn is_root(&self) -> bool {
        self.segments.is_empty()
    }

    /// The last segment, if it is a key.
    pub fn last_key(&self) -> Option<&str> {
        match self.segments.last() {
            Some(PathSegment::Key(key)) => Some(key),
            _ => None,
        }
    }
}

impl From<Vec<PathSegment>> for YamlPath {
    fn from(segments: Vec<PathSegment>) -> YamlPath {
        YamlPath { segments }
    }
}

/// A key that displays without quotes and brackets.
fn is_bare_key(key: &str) -> bool {
    !key.is_empty()
        && key.chars().all(|character| {
            character.is_ascii_alphanumeric() || character == '_' || character == '-'
        })
}

impl fmt::Display for YamlPath {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (segment_idx, segment) in self.segments.iter().enumerate() {
            match segment {
                PathSegment::Key(key) if is_bare_key(key) => {
                    if segment_idx > 0 {
                        formatter.write_str(".")?;
                    }
                    formatter.write_str(key)?;
                }
                PathSegment::Key(key) => {
                    formatter.write_str("[\"")?;
                    for character in key.chars() {
                        if character == '"' || character == '\\' {
                            formatter.write_str("\\")?;
                        }
                        write!(formatter, "{character}")?;
                    }
                    formatter.write_str("\"]")?;
                }
                PathSegment::Index(index) => write!(formatter, "[{index}]")?,
            }
        }
        Ok(())
    }
}

/// A string that is not a [`YamlPath`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlPathError {
    /// Byte offset in the string where reading stopped.
    pub offset: usize,
    /// What was expected there.
    pub message: String,
}

impl fmt::Display for YamlPathError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "invalid path at byte {}: {}",
            self.offset, self.message
        )
    }
}

impl std::error::Error for YamlPathError {}

impl FromStr for YamlPath {
    type Err = YamlPathError;

    fn from_str(text: &str) -> Result<YamlPath, YamlPathError> {
        let error = |offset: usize, message: &str| YamlPathError {
            offset,
            message: message.to_owned(),
        };
        let is_bare_character = |character: char| !matches!(character, '.' | '[' | ']' | '"');
        let mut path = YamlPath::root();
        let mut chars = text.char_indices().peekable();
        while let Some(&(offset, character)) = chars.peek() {
            let bare_key_follows = match character {
                '.' if offset > 0 => {
                    chars.next();
                    true
                }
                '[' => false,
                _ if offset == 0 => true,
                _ => return Err(error(offset, "expected `.` or `[`")),
            };
            if bare_key_follows {
                let mut key = String::new();
                while let Some(&(_, character)) = chars.peek() {
                    if !is_bare_character(character) {
                        break;
                    }
                    key.push(character);
                    chars.next();
                }
                if key.is_empty() {
                    let offset = chars.peek().map_or(text.len(), |&(offset, _)| offset);
                    return Err(error(offset, "expected a key"));
                }
                path.push_key(key);
                continue;
            }
            chars.next(); // the `[`
            match chars.peek() {
                Some(&(_, '"')) => {
                    chars.next();
                    let mut key = String::new();
                    loop {
                        match chars.next() {
                            Some((_, '"')) => break,
                            Some((_, '\\')) => match chars.next() {
                                Some((_, escaped @ ('"' | '\\'))) => key.push(escaped),
                                Some((offset, _)) => {
                                    return Err(error(offset, "only `\\\"` and `\\\\` escapes"));
                                }
                                None => return Err(error(text.len(), "unclosed `\"`")),
                            },
                            Some((_, character)) => key.push(character),
                            None => return Err(error(text.len(), "unclosed `\"`")),
                        }
                    }
                    path.push_key(key);
                }
                _ => {
                    let start = chars.peek().map_or(text.len(), |&(offset, _)| offset);
                    let mut end = start;
                    while let Some(&(offset, character)) = chars.peek() {
                        if !character.is_ascii_digit() {
                            break;
                        }
                        end = offset + 1;
                        chars.next();
                    }
                    let index = text[start..end]
                        .parse()
                        .map_err(|_| error(start, "expected an index or a quoted key"))?;
                    path.push_index(index);
                }
            }
            match chars.next() {
                Some((_, ']')) => {}
                Some((offset, _)) => return Err(error(offset, "expected `]`")),
                None => return Err(error(text.len(), "expected `]`")),
            }
        }
        Ok(path)
    }
}

/// Where a path points in the text: the value, and the key when it is a mapping entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    /// Start of the value (for a block mapping, its first key).
    pub value: Position,
    /// Start of the key, when the located value is a mapping entry.
    pub key: Option<Position>,
    /// How many leading segments of the path exist in the document; fewer than the path's
    /// length means the location is that of the nearest existing ancestor.
    pub matched_segments: usize,
}

/// One parsed YAML document: its data and where each part of it is in the text.
#[derive(Clone, Debug)]
pub struct SourceDocument {
    tree: Tree,
}

impl SourceDocument {
    /// Moves positions on re-indented lines back to where they are in the text as written.
    fn unpad(&mut self, pads: &[(usize, usize)]) {
        if pads.is_empty() {
            return;
        }
        for place in self.tree.places_mut() {
            place.unpad(pads);
        }
    }

    /// The data, as yaml_serde would read it (aliases expanded, tags kept), where it is.
    pub fn node(&self) -> Node<'_> {
        Node::root(&self.tree)
    }

    /// The data copied out as a `yaml_serde::Value`.
    pub fn to_value(&self) -> Value {
        self.node().to_value()
    }

    /// Whether the document is empty (or only `null`).
    pub fn is_null(&self) -> bool {
        self.node().is_null()
    }

    /// The value's and the key's positions for `path`, or the nearest existing ancestor's
    /// when the path does not exist (see [`Location::matched_segments`]).
    pub fn locate(&self, path: &YamlPath) -> Location {
        let root = self.tree.root();
        let mut location = Location {
            value: root.place.into(),
            key: None,
            matched_segments: 0,
        };
        let mut node = root.node;
        for segment in path.segments() {
            let found = match segment {
                PathSegment::Key(key) => self
                    .tree
                    .entry_by_text(node, key)
                    .map(|entry| (entry.value, Some(entry.key_place.into()))),
                PathSegment::Index(index) => self
                    .tree
                    .items_of(self.tree.untagged(node))
                    .get(*index)
                    .map(|item| (*item, None)),
            };
            let Some((child, key)) = found else { break };
            location = Location {
                value: child.place.into(),
                key,
                matched_segments: location.matched_segments + 1,
            };
            node = child.node;
        }
        location
    }

    /// The bytes the document holds (values, places, text and indexes), for the bound a
    /// text's documents are held to.
    pub fn held_bytes(&self) -> usize {
        self.tree.held_bytes()
    }

    /// Where a diagnostic about `path` should point: the key of a mapping entry, the item
    /// of a sequence, and for a path that does not exist its nearest existing ancestor (a
    /// missing field is reported at the entry of the mapping that lacks it).
    pub fn position(&self, path: &YamlPath) -> Position {
        let location = self.locate(path);
        location.key.unwrap_or(location.value)
    }
}

/// The value under any YAML tags (`!Tag value`): tags do not survive the conversion to JSON.
pub fn untagged(mut value: &Value) -> &Value {
    while let Value::Tagged(tagged) = value {
        value = &tagged.value;
    }
    value
}

/// The text of a mapping key as a path segment: strings as they are, numbers and booleans
/// as written by yaml_serde (the way Kubernetes' YAML-to-JSON conversion names them),
/// `null` for a null key, and `None` for a sequence or mapping used as a key.
pub fn mapping_key_text(key: &Value) -> Option<String> {
    Node::from(key).key_text().map(std::borrow::Cow::into_owned)
}

/// Parses YAML text with one or more documents into values with positions.
///
/// An empty text (or one with only comments) has no documents. The first problem found is
/// returned with its line and column; no input makes this panic.
///
/// Inside a flow collection (`[...]`, `{...}`) libyaml, and so go-yaml, eksctl and kubectl,
/// ignore indentation, where yaml-rust2 refuses a line less indented than the enclosing
/// block. Such a line is indented for yaml-rust2 and the text read again (leading spaces
/// inside a flow collection change no value); positions on it are moved back.
pub fn parse_documents(text: &str) -> Result<Vec<SourceDocument>, YamlError> {
    // A byte-order mark some editors write first is no part of the first key (go-yaml
    // skips it too); columns on the first line are counted after it, as editors show them.
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    /// Each round re-reads the text; more flow collections than this to re-indent is not
    /// a file anyone wrote by hand.
    const MAX_REINDENTED_COLLECTIONS: usize = 16;
    let mut pads: Vec<(usize, usize)> = Vec::new();
    let mut rounds = 0;
    let mut current = std::borrow::Cow::Borrowed(text);
    loop {
        let error = match parse_strict(&current) {
            Ok(mut documents) => {
                for document in &mut documents {
                    document.unpad(&pads);
                }
                return Ok(documents);
            }
            Err(error) => error,
        };
        let reindent = error.message.starts_with("invalid indentation")
            && rounds < MAX_REINDENTED_COLLECTIONS
            && !pads.iter().any(|(line, _)| *line == error.line);
        let needed = reindent
            .then(|| flow_lines_to_indent(&current, error.line))
            .flatten();
        match needed {
            Some(lines) => {
                rounds += 1;
                current = std::borrow::Cow::Owned(indent_lines(&current, &lines));
                pads.extend(lines);
            }
            None => {
                let mut error = error;
                error.column = unpad_column(&pads, error.line, error.column);
                return Err(error);
            }
        }
    }
}

/// `column` on `line` before the spaces added to it.
fn unpad_column(pads: &[(usize, usize)], line: usize, column: usize) -> usize {
    pads.iter()
        .filter(|(padded, _)| *padded == line)
        .fold(column, |column, (_, pad)| {
            column.saturating_sub(*pad).max(1)
        })
}

fn indent_lines(text: &str, lines: &[(usize, usize)]) -> String {
    let mut out =
        String::with_capacity(text.len() + lines.iter().map(|(_, pad)| pad).sum::<usize>());
    let mut wanted = lines.iter().peekable();
    for (index, piece) in text.split_inclusive('\n').enumerate() {
        if let Some((_, pad)) = wanted.next_if(|(line, _)| *line == index + 1) {
            out.extend(std::iter::repeat_n(' ', *pad));
        }
        out.push_str(piece);
    }
    out
}

/// When `line` (from 1) starts inside a flow collection: each line of that collection from
/// `line` on that needs spaces to sit right of the line where the outermost open collection
/// began, with how many. `None` when the line is in block context (a real indentation
/// error) or no line needs any.
fn flow_lines_to_indent(text: &str, line: usize) -> Option<Vec<(usize, usize)>> {
    let mut depth = 0usize;
    let mut opened_indent = 0usize;
    let mut quote: Option<char> = None;
    let mut pads = Vec::new();
    let mut block_scalar: Option<usize> = None;
    for (index, content) in text.split('\n').enumerate() {
        let number = index + 1;
        let indent = content.len() - content.trim_start_matches(' ').len();
        // A block scalar's lines are text, not flow collections: they follow an indicator
        // at the end of a line in block context and are more indented than it.
        if let Some(scalar_indent) = block_scalar {
            if content.trim().is_empty() || indent > scalar_indent {
                if number == line {
                    return None;
                }
                continue;
            }
            block_scalar = None;
        }
        if number == line && depth == 0 {
            return None;
        }
        if number >= line {
            let wanted = opened_indent + 1;
            if indent < wanted {
                pads.push((number, wanted - indent));
            }
        }
        let mut previous = ' ';
        let mut characters = content.chars().peekable();
        while let Some(character) = characters.next() {
            match quote {
                Some('"') => match character {
                    '\\' => {
                        characters.next();
                    }
                    '"' => quote = None,
                    _ => {}
                },
                Some(_) => {
                    if character == '\'' {
                        if characters.peek() == Some(&'\'') {
                            characters.next();
                        } else {
                            quote = None;
                        }
                    }
                }
                None => match character {
                    '#' if previous.is_whitespace() => break,
                    '"' | '\'' if depth > 0 || matches!(previous, ' ' | ':' | '-') => {
                        quote = Some(character)
                    }
                    '[' | '{' if depth > 0 || matches!(previous, ' ' | ':' | '-') => {
                        if depth == 0 {
                            opened_indent = indent;
                        }
                        depth += 1;
                    }
                    ']' | '}' if depth > 0 => depth -= 1,
                    _ => {}
                },
            }
            previous = character;
        }
        if number >= line && depth == 0 {
            break;
        }
        if depth == 0 && quote.is_none() {
            let trimmed = content.trim_end();
            let indicator = trimmed.trim_end_matches(|character: char| {
                character.is_ascii_digit() || character == '-' || character == '+'
            });
            if indicator.ends_with(['|', '>']) {
                block_scalar = Some(indent);
            }
        }
    }
    (!pads.is_empty()).then_some(pads)
}

fn parse_strict(text: &str) -> Result<Vec<SourceDocument>, YamlError> {
    if let Some(error) = first_unprintable(text) {
        return Err(error);
    }
    // The scanner places problems at the very end of a text without a final line break
    // on a line after the last one; such places are moved back to the end of the text.
    let end = end_position(text);
    let mut parser = Parser::new_from_str(text);
    let mut documents = Vec::new();
    let mut document: Option<DocumentBuilder> = None;
    let mut copied = (0, 0);
    let mut lines: Option<LineStarts> = None;
    // The last event's place, and whether it was an empty item placed at its own dash.
    let mut previous = (Position { line: 1, column: 1 }, false);
    let inside_text = |mut error: YamlError| {
        if error.position() > end {
            (error.line, error.column) = (end.line, end.column);
        }
        error
    };
    loop {
        let (event, marker) = parser
            .next_token()
            .map_err(|error| inside_text(YamlError::from_scan(&error)))?;
        let mut position = Position::from_marker(&marker).min(end);
        // An empty sequence item (`-` and nothing) is reported at a later token, often in
        // the next item; its place is the first item dash after the event before it.
        let empty_item = matches!(&event, Event::Scalar(scalar, TScalarStyle::Plain, _, None) if scalar.is_empty())
            && document.as_ref().is_some_and(DocumentBuilder::in_sequence);
        if empty_item {
            let lines = lines.get_or_insert_with(|| LineStarts::of(text));
            if let Some(dash) = lines.item_dash(text, previous.0, previous.1, position) {
                position = dash;
            }
        }
        previous = (position, empty_item);
        match event {
            Event::StreamEnd => return Ok(documents),
            Event::StreamStart | Event::Nothing => {}
            Event::DocumentStart => {
                // What aliases copy counts over the whole stream, not each document anew.
                let mut builder = DocumentBuilder::new(text.len());
                (builder.alias_expansion, builder.alias_expansion_bytes) = copied;
                document = Some(builder);
            }
            Event::DocumentEnd => {
                if let Some(builder) = document.take() {
                    copied = (builder.alias_expansion, builder.alias_expansion_bytes);
                    documents.push(builder.finish(position));
                }
            }
            content => match document.as_mut() {
                Some(builder) => builder.on_event(content, position).map_err(inside_text)?,
                None => return Err(YamlError::at(position, "content outside a document")),
            },
        }
    }
}

/// Where each line of a text starts, to turn a line and column back into a byte offset.
struct LineStarts(Vec<usize>);

impl LineStarts {
    fn of(text: &str) -> LineStarts {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(offset, _)| offset + 1));
        LineStarts(starts)
    }

    fn offset(&self, text: &str, position: Position) -> Option<usize> {
        let start = *self.0.get(position.line.checked_sub(1)?)?;
        Some(
            text[start..]
                .char_indices()
                .nth(position.column.checked_sub(1)?)
                .map_or(text.len(), |(offset, _)| start + offset),
        )
    }

    fn position(&self, text: &str, offset: usize) -> Position {
        let line = self.0.partition_point(|start| *start <= offset);
        let column = text[self.0[line - 1]..offset].chars().count() + 1;
        Position { line, column }
    }

    /// The `-` of an empty sequence item: the first item indicator (a dash with only
    /// spaces or other dashes before it on its line, and a space or line break after it)
    /// from `from` (past it when `past`) up to `to`, where the parser reported the item.
    fn item_dash(&self, text: &str, from: Position, past: bool, to: Position) -> Option<Position> {
        let start = self.offset(text, from)? + usize::from(past);
        let end = self.offset(text, to)?;
        let bytes = text.as_bytes();
        (start..end.min(bytes.len()))
            .find(|&offset| {
                bytes[offset] == b'-'
                    && matches!(
                        bytes.get(offset + 1),
                        None | Some(b' ' | b'\t' | b'\r' | b'\n')
                    )
                    && bytes[..offset]
                        .iter()
                        .rev()
                        .take_while(|byte| **byte != b'\n')
                        .all(|byte| matches!(byte, b' ' | b'-'))
            })
            .map(|offset| self.position(text, offset))
    }
}

/// The first character YAML does not allow in a stream (C0 and C1 controls other than tab,
/// line feed, carriage return and next line; DEL; the BOM anywhere but the start). The parser
/// would silently stop at some of them, so a binary file would read as an empty one.
fn first_unprintable(text: &str) -> Option<YamlError> {
    let mut position = Position { line: 1, column: 1 };
    for (offset, character) in text.char_indices() {
        let allowed = match character {
            '\t' | '\n' | '\r' | '\u{85}' => true,
            '\u{feff}' => offset == 0,
            _ => !character.is_control(),
        };
        if !allowed {
            return Some(YamlError::at(
                position,
                format!(
                    "control character U+{:04X} is not allowed in YAML (is this a binary file?)",
                    u32::from(character)
                ),
            ));
        }
        if character == '\n' {
            position.line += 1;
            position.column = 1;
        } else {
            position.column += 1;
        }
    }
    None
}

/// The place just after the last character, counting lines as YAML does (`\r\n`, `\r`
/// and `\n` each end a line).
fn end_position(text: &str) -> Position {
    let mut end = Position { line: 1, column: 1 };
    let mut characters = text.chars().peekable();
    while let Some(character) = characters.next() {
        let line_break = match character {
            '\r' => {
                characters.next_if_eq(&'\n');
                true
            }
            '\n' => true,
            _ => false,
        };
        if line_break {
            end = Position {
                line: end.line + 1,
                column: 1,
            };
        } else {
            end.column += 1;
        }
    }
    end
}

impl Place {
    /// This place's column before the spaces added to its line.
    fn unpad(&mut self, pads: &[(usize, usize)]) {
        self.column = saturated(unpad_column(pads, self.line as usize, self.column as usize));
    }
}

impl From<Position> for Place {
    fn from(position: Position) -> Place {
        Place {
            line: saturated(position.line),
            column: saturated(position.column),
        }
    }
}

impl From<Place> for Position {
    fn from(place: Place) -> Position {
        Position {
            line: place.line as usize,
            column: place.column as usize,
        }
    }
}

/// A finished node, ready to be attached to its parent.
struct Built {
    child: Child,
    /// A plain `<<` key: its value's mappings merge into the enclosing mapping.
    merge: bool,
    /// Nodes in the value, counting copies made by aliases.
    size: usize,
    /// Bytes of the value's scalars and nodes ([`NODE_BYTES`] each), counting copies.
    bytes: usize,
    /// Nesting depth of collections inside the value (0 for a scalar).
    height: usize,
}

/// An anchored node, kept for the aliases that refer to it.
struct Anchored {
    node: u32,
    size: usize,
    bytes: usize,
    height: usize,
}

enum OpenContent {
    Sequence(Vec<Child>),
    Mapping {
        entries: OpenEntries,
        pending_key: Option<PendingKey>,
    },
}

/// A mapping key waiting for its value.
struct PendingKey {
    key: u32,
    position: Position,
    merge: bool,
}

/// A sequence or mapping whose end event has not come yet.
struct OpenCollection {
    content: OpenContent,
    anchor_id: usize,
    tag: Option<EventTag>,
    position: Position,
    size: usize,
    bytes: usize,
    height: usize,
}

struct DocumentBuilder {
    tree: Builder,
    open: Vec<OpenCollection>,
    /// By yaml-rust2's anchor id, which counts the anchors of the stream from 1.
    anchors: Vec<Option<Anchored>>,
    alias_expansion: usize,
    alias_expansion_bytes: usize,
    /// The most bytes aliases may copy: a share of the whole text's size.
    alias_expansion_byte_limit: usize,
    root: Option<Child>,
}

impl DocumentBuilder {
    fn new(text_bytes: usize) -> DocumentBuilder {
        DocumentBuilder {
            alias_expansion_byte_limit: text_bytes
                .saturating_mul(ALIAS_EXPANSION_BYTES_PER_TEXT_BYTE)
                .max(MIN_ALIAS_EXPANSION_BYTES),
            tree: Builder::new(),
            open: Vec::new(),
            anchors: Vec::new(),
            alias_expansion: 0,
            alias_expansion_bytes: 0,
            root: None,
        }
    }

    /// Whether the innermost open collection is a sequence.
    fn in_sequence(&self) -> bool {
        matches!(
            self.open.last(),
            Some(OpenCollection {
                content: OpenContent::Sequence(..),
                ..
            })
        )
    }

    fn on_event(&mut self, event: Event, position: Position) -> Result<(), YamlError> {
        match event {
            Event::Scalar(text, style, anchor_id, tag) => {
                // An empty value (`name:` with nothing after it) is reported by the parser at
                // the next token, often on the next line; its key is the better place.
                let plain = style == TScalarStyle::Plain;
                let position = match self.open.last() {
                    Some(OpenCollection {
                        content:
                            OpenContent::Mapping {
                                pending_key: Some(pending),
                                ..
                            },
                        ..
                    }) if text.is_empty() && plain && tag.is_none() => pending.position,
                    _ => position,
                };
                let merge = plain && tag.is_none() && text == "<<";
                let bytes = NODE_BYTES + text.len();
                let tag = tag.map(|tag| format!("{}{}", tag.handle, tag.suffix));
                let value = scalar_value(text, plain, tag.as_deref())
                    .map_err(|message| YamlError::at(position, message))?;
                let node = self.tree.value(&value);
                self.finish_node(
                    anchor_id,
                    Built {
                        child: Child {
                            place: position.into(),
                            node,
                        },
                        merge,
                        size: 1,
                        bytes,
                        height: 0,
                    },
                )
            }
            Event::Alias(anchor_id) => {
                let Some(Some(anchored)) = self.anchors.get(anchor_id) else {
                    return Err(YamlError::at(
                        position,
                        "alias refers to a node that contains it (recursive alias)",
                    ));
                };
                self.alias_expansion += anchored.size;
                if self.alias_expansion > MAX_ALIAS_EXPANSION {
                    return Err(YamlError::at(
                        position,
                        format!(
                            "aliases expand to more than {MAX_ALIAS_EXPANSION} nodes; refusing to expand them"
                        ),
                    ));
                }
                self.alias_expansion_bytes += anchored.bytes;
                if self.alias_expansion_bytes > self.alias_expansion_byte_limit {
                    return Err(YamlError::at(
                        position,
                        format!(
                            "aliases copy more than {} bytes, {ALIAS_EXPANSION_BYTES_PER_TEXT_BYTE} times the size of the text; refusing to expand them",
                            self.alias_expansion_byte_limit
                        ),
                    ));
                }
                if self.open.len() + anchored.height > MAX_NESTING_DEPTH {
                    return Err(nesting_error(position));
                }
                let built = Built {
                    child: Child {
                        place: position.into(),
                        node: anchored.node,
                    },
                    merge: false,
                    size: anchored.size,
                    bytes: anchored.bytes,
                    height: anchored.height,
                };
                self.attach(built)
            }
            Event::SequenceStart(anchor_id, tag) => {
                self.open_collection(OpenContent::Sequence(Vec::new()), anchor_id, tag, position)
            }
            Event::MappingStart(anchor_id, tag) => self.open_collection(
                OpenContent::Mapping {
                    entries: OpenEntries::default(),
                    pending_key: None,
                },
                anchor_id,
                tag,
                position,
            ),
            Event::SequenceEnd | Event::MappingEnd => {
                let Some(collection) = self.open.pop() else {
                    return Err(YamlError::at(
                        position,
                        "end of a collection that never started",
                    ));
                };
                let mut node = match collection.content {
                    OpenContent::Sequence(children) => self.tree.sequence(children),
                    OpenContent::Mapping { entries, .. } => self.tree.mapping(entries),
                };
                let tag = collection
                    .tag
                    .as_ref()
                    .map(|tag| format!("{}{}", tag.handle, tag.suffix));
                if let Some(name) = local_tag_name(tag.as_deref()) {
                    node = self.tree.tagged(Tag::new(name), node);
                }
                let built = Built {
                    child: Child {
                        place: collection.position.into(),
                        node,
                    },
                    merge: false,
                    size: collection.size,
                    bytes: collection.bytes,
                    height: collection.height,
                };
                self.finish_node(collection.anchor_id, built)
            }
            Event::Nothing
            | Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart
            | Event::DocumentEnd => Ok(()),
        }
    }

    fn open_collection(
        &mut self,
        content: OpenContent,
        anchor_id: usize,
        tag: Option<EventTag>,
        position: Position,
    ) -> Result<(), YamlError> {
        if self.open.len() >= MAX_NESTING_DEPTH {
            return Err(nesting_error(position));
        }
        self.open.push(OpenCollection {
            content,
            anchor_id,
            tag,
            position,
            size: 1,
            bytes: NODE_BYTES,
            height: 1,
        });
        Ok(())
    }

    /// Records the anchor, if any, then attaches the node to its parent.
    fn finish_node(&mut self, anchor_id: usize, built: Built) -> Result<(), YamlError> {
        if anchor_id != 0 {
            if self.anchors.len() <= anchor_id {
                self.anchors.resize_with(anchor_id + 1, || None);
            }
            self.anchors[anchor_id] = Some(Anchored {
                node: built.child.node,
                size: built.size,
                bytes: built.bytes,
                height: built.height,
            });
        }
        self.attach(built)
    }

    fn attach(&mut self, built: Built) -> Result<(), YamlError> {
        let Some(parent) = self.open.last_mut() else {
            self.root = Some(built.child);
            return Ok(());
        };
        parent.size += built.size;
        parent.bytes += built.bytes;
        parent.height = parent.height.max(built.height + 1);
        match &mut parent.content {
            OpenContent::Sequence(children) => children.push(built.child),
            OpenContent::Mapping {
                entries,
                pending_key,
            } => match pending_key.take() {
                None => {
                    // A block mapping's start event comes after its first key; the key is
                    // where the mapping starts in the text.
                    let key_position = Position::from(built.child.place);
                    if entries.is_empty() && key_position < parent.position {
                        parent.position = key_position;
                    }
                    *pending_key = Some(PendingKey {
                        key: built.child.node,
                        position: key_position,
                        merge: built.merge,
                    });
                }
                Some(pending) if pending.merge => {
                    merge_into(&mut self.tree, entries, built.child.node, pending.position)?;
                }
                Some(pending) => {
                    let entry = Entry {
                        key: pending.key,
                        key_place: pending.position.into(),
                        value: built.child,
                    };
                    if let Put::Duplicate = self.tree.put(entries, entry, false) {
                        return Err(YamlError::at(
                            pending.position,
                            duplicate_key_message(&self.tree.tree().to_value(pending.key)),
                        ));
                    }
                }
            },
        }
        Ok(())
    }

    fn finish(self, end: Position) -> SourceDocument {
        let root = self.root.unwrap_or(Child {
            place: end.into(),
            node: tree::NULL,
        });
        SourceDocument {
            tree: self.tree.finish(root),
        }
    }
}

fn nesting_error(position: Position) -> YamlError {
    YamlError::at(
        position,
        format!("nesting deeper than {MAX_NESTING_DEPTH} levels"),
    )
}

/// The message yaml_serde gives for the same duplicate key.
fn duplicate_key_message(key: &Value) -> String {
    match key {
        Value::Null => "duplicate entry with null key".to_owned(),
        Value::Bool(boolean) => format!("duplicate entry with key `{boolean}`"),
        Value::Number(number) => format!("duplicate entry with key {number}"),
        Value::String(text) => format!("duplicate entry with key {text:?}"),
        Value::Sequence(_) | Value::Mapping(_) | Value::Tagged(_) => {
            "duplicate entry in YAML map".to_owned()
        }
    }
}

/// A `<<` entry as go-yaml v2 merges it: the value is a mapping, or a sequence of mappings
/// where earlier ones win; merged keys replace keys set before and give way to explicit keys
/// after (a later explicit key is no duplicate). Merged entries keep the places they have
/// in the mappings they come from.
fn merge_into(
    tree: &mut Builder,
    entries: &mut OpenEntries,
    value: u32,
    key_position: Position,
) -> Result<(), YamlError> {
    let not_a_mapping = || {
        YamlError::at(
            key_position,
            "a `<<` merge key needs a mapping or a sequence of mappings",
        )
    };
    let sources: Vec<u32> = match tree.tree().node(value) {
        TreeNode::Mapping { .. } => vec![value],
        TreeNode::Sequence { .. } => {
            let mut sources = Vec::new();
            for item in tree.tree().items_of(value).iter().rev() {
                if !matches!(tree.tree().node(item.node), TreeNode::Mapping { .. }) {
                    return Err(not_a_mapping());
                }
                sources.push(item.node);
            }
            sources
        }
        _ => return Err(not_a_mapping()),
    };
    for source in sources {
        for entry in tree.entries_of(source) {
            tree.put(entries, entry, true);
        }
    }
    Ok(())
}

const CORE_TAG_PREFIX: &str = "tag:yaml.org,2002:";

/// A local tag (`!Name`) as yaml_serde names it: without the `!`, unless that is all it is.
fn local_tag_name(tag: Option<&str>) -> Option<String> {
    let full = tag?;
    if !full.starts_with('!') {
        return None;
    }
    Some(match full.strip_prefix('!') {
        Some(name) if !name.is_empty() => name.to_owned(),
        _ => full.to_owned(),
    })
}

/// A scalar's value as go-yaml v2 decodes it into an `interface{}` (which is how
/// sigs.k8s.io/yaml turns eksctl's and Kubernetes' YAML into JSON): quoted and block scalars
/// are strings, plain ones resolve by YAML 1.1 rules, and an explicit core tag (`!!int`)
/// must agree with what the text resolves to.
fn scalar_value(text: String, plain: bool, tag: Option<&str>) -> Result<Value, String> {
    let Some(tag) = tag else {
        return Ok(if plain {
            resolve_plain(text)
        } else {
            Value::String(text)
        });
    };
    if let Some(name) = local_tag_name(Some(tag)) {
        let value = if plain {
            resolve_plain(text)
        } else {
            Value::String(text)
        };
        return Ok(Value::Tagged(Box::new(TaggedValue {
            tag: Tag::new(name),
            value,
        })));
    }
    let core_type = tag.strip_prefix(CORE_TAG_PREFIX).unwrap_or(tag);
    let resolved = resolve_plain(text.clone());
    let kind = match &resolved {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(number) if number.is_f64() => "float",
        Value::Number(_) => "int",
        _ => "str",
    };
    match (core_type, kind) {
        ("str" | "binary" | "timestamp", _) => Ok(Value::String(text)),
        ("float", "int") => Ok(Value::Number(Number::from(
            resolved.as_f64().unwrap_or_default(),
        ))),
        (wanted, found) if wanted == found => Ok(resolved),
        ("bool" | "int" | "float" | "null", found) => Err(format!(
            "cannot decode !!{found} `{text}` as a !!{core_type}"
        )),
        _ => Ok(Value::String(text)),
    }
}

/// A plain scalar as go-yaml v2's `resolve` reads it (YAML 1.1): null, boolean, integer
/// (decimal, `0x`, `0o`, `0b`, leading-zero octal, `_` ignored), float, else string.
/// Timestamps such as `2012-10-17` stay strings, as go-yaml v2 leaves them for `interface{}`.
pub(crate) fn resolve_plain(text: String) -> Value {
    match text.as_str() {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return Value::Bool(true);
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Value::Bool(false);
        }
        ".nan" | ".NaN" | ".NAN" => return Value::Number(Number::from(f64::NAN)),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Value::Number(Number::from(f64::INFINITY));
        }
        "-.inf" | "-.Inf" | "-.INF" => return Value::Number(Number::from(f64::NEG_INFINITY)),
        _ => {}
    }
    match text.as_bytes()[0] {
        b'.' => match text.parse::<f64>() {
            Ok(float) if !text.contains(['_', 'i', 'I', 'n', 'N']) => {
                Value::Number(Number::from(float))
            }
            _ => Value::String(text),
        },
        b'0'..=b'9' | b'+' | b'-' => {
            let plain = text.replace('_', "");
            if let Some(number) = go_parse_int(&plain) {
                return Value::Number(number);
            }
            if is_yaml_style_float(&plain)
                && let Ok(float) = plain.parse::<f64>()
            {
                return Value::Number(Number::from(float));
            }
            Value::String(text)
        }
        _ => Value::String(text),
    }
}

/// Go's `strconv.ParseInt(text, 0, 64)`, then `ParseUint`: a sign, then `0x`/`0o`/`0b`
/// digits, a leading-zero octal, or decimal. `None` when it is not such an integer or does
/// not fit in 64 bits.
fn go_parse_int(text: &str) -> Option<Number> {
    let (negative, unsigned) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let lower = unsigned.get(..2).map(str::to_ascii_lowercase);
    let (digits, radix) = match lower.as_deref() {
        Some("0x") => (&unsigned[2..], 16),
        Some("0o") => (&unsigned[2..], 8),
        Some("0b") => (&unsigned[2..], 2),
        _ if unsigned.len() > 1 && unsigned.starts_with('0') => (&unsigned[1..], 8),
        _ => (unsigned, 10),
    };
    if digits.is_empty() || digits.starts_with(['+', '-']) {
        return None;
    }
    let magnitude = u64::from_str_radix(digits, radix).ok()?;
    if negative {
        let value = 0i128 - i128::from(magnitude);
        i64::try_from(value).ok().map(Number::from)
    } else {
        Some(Number::from(magnitude))
    }
}

/// go-yaml v2's `yamlStyleFloat`: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_style_float(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut at = usize::from(matches!(bytes.first(), Some(b'+' | b'-')));
    let digits = |from: usize| {
        bytes[from..]
            .iter()
            .take_while(|byte| byte.is_ascii_digit())
            .count()
    };
    let whole = digits(at);
    at += whole;
    if bytes.get(at) == Some(&b'.') {
        at += 1;
        let fraction = digits(at);
        if whole == 0 && fraction == 0 {
            return false;
        }
        at += fraction;
    } else if whole == 0 {
        return false;
    }
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        at += 1;
        if matches!(bytes.get(at), Some(b'+' | b'-')) {
            at += 1;
        }
        let exponent = digits(at);
        if exponent == 0 {
            return false;
        }
        at += exponent;
    }
    at == bytes.len()
}
