//! A value in a [`Tree`], read as `yaml_serde::Value` reads: the rules, the schema walk
//! and the import take a [`Node`], so a document is checked where it was read, without
//! being copied out into `Value`s first.
//!
//! Like `Value`'s, the accessors (`as_str`, `get`, `as_mapping`, …) look through tags.

use yaml_serde::{Mapping, Number, Value};

use super::tree::{Child, Entry, Tree, TreeNode};

/// One value: of a tree, or of a `yaml_serde::Value` (`Node::from(&value)`). Copying it
/// copies a reference and an index.
#[derive(Clone, Copy)]
pub struct Node<'a>(Inner<'a>);

#[derive(Clone, Copy)]
enum Inner<'a> {
    Tree(&'a Tree, u32),
    Value(&'a Value),
}

impl std::fmt::Debug for Node<'_> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.to_value(), formatter)
    }
}

impl<'a> From<&'a Value> for Node<'a> {
    fn from(value: &'a Value) -> Node<'a> {
        Node(Inner::Value(value))
    }
}

/// What a node is, to match on as one would on a `Value`.
#[derive(Clone, Copy, Debug)]
pub enum Kind<'a> {
    /// `null`, `~` or nothing.
    Null,
    /// A boolean.
    Bool(bool),
    /// A number.
    Number(&'a Number),
    /// A string.
    String(&'a str),
    /// A sequence.
    Sequence(Seq<'a>),
    /// A mapping.
    Mapping(Map<'a>),
    /// A value with a local tag (`!Name value`): the tag as `yaml_serde` prints it (`!Name`)
    /// and the value.
    Tagged(&'a yaml_serde::value::Tag, Node<'a>),
}

/// What [`Node::null`] points at.
static NULL_VALUE: Value = Value::Null;

impl<'a> Node<'a> {
    /// A `null` of no document, for a missing value.
    pub fn null() -> Node<'static> {
        Node(Inner::Value(&NULL_VALUE))
    }

    pub(crate) fn new(tree: &'a Tree, id: u32) -> Node<'a> {
        Node(Inner::Tree(tree, id))
    }

    /// The document's root.
    pub fn root(tree: &'a Tree) -> Node<'a> {
        Node::new(tree, tree.root().node)
    }

    /// What this node is, tags kept.
    pub fn kind(self) -> Kind<'a> {
        match self.0 {
            Inner::Value(value) => match value {
                Value::Null => Kind::Null,
                Value::Bool(boolean) => Kind::Bool(*boolean),
                Value::Number(number) => Kind::Number(number),
                Value::String(text) => Kind::String(text),
                Value::Sequence(items) => Kind::Sequence(Seq(SeqInner::Value(items))),
                Value::Mapping(mapping) => Kind::Mapping(Map(MapInner::Value(mapping))),
                Value::Tagged(tagged) => Kind::Tagged(&tagged.tag, Node::from(&tagged.value)),
            },
            Inner::Tree(tree, id) => match tree.node(id) {
                TreeNode::Null => Kind::Null,
                TreeNode::Bool(boolean) => Kind::Bool(boolean),
                TreeNode::Number(index) => Kind::Number(tree.number(index)),
                TreeNode::String { start, len } => Kind::String(tree.string(start, len)),
                TreeNode::Sequence { start, len } => {
                    Kind::Sequence(Seq(SeqInner::Tree(tree, tree.items(start, len))))
                }
                TreeNode::Mapping { start, len } => {
                    Kind::Mapping(Map(MapInner::Tree(tree, id, tree.entries(start, len))))
                }
                TreeNode::Tagged(index) => {
                    let (tag, node) = tree.tag(index);
                    Kind::Tagged(tag, Node::new(tree, node))
                }
            },
        }
    }

    /// The value under any tags.
    pub fn untagged(self) -> Node<'a> {
        match self.0 {
            Inner::Value(mut value) => {
                while let Value::Tagged(tagged) = value {
                    value = &tagged.value;
                }
                Node::from(value)
            }
            Inner::Tree(tree, id) => Node::new(tree, tree.untagged(id)),
        }
    }

    /// The value copied out as a `yaml_serde::Value`.
    pub fn to_value(self) -> Value {
        match self.0 {
            Inner::Value(value) => value.clone(),
            Inner::Tree(tree, id) => tree.to_value(id),
        }
    }

    /// Whether this is null (under any tags).
    pub fn is_null(self) -> bool {
        matches!(self.untagged().kind(), Kind::Null)
    }

    /// The boolean, if this is one.
    pub fn as_bool(self) -> Option<bool> {
        match self.untagged().kind() {
            Kind::Bool(boolean) => Some(boolean),
            _ => None,
        }
    }

    /// The number, if this is one.
    pub fn as_number(self) -> Option<&'a Number> {
        match self.untagged().kind() {
            Kind::Number(number) => Some(number),
            _ => None,
        }
    }

    /// The number as an `i64`, if it is an integer that fits.
    pub fn as_i64(self) -> Option<i64> {
        self.as_number().and_then(Number::as_i64)
    }

    /// The number as a `u64`, if it is a non-negative integer that fits.
    pub fn as_u64(self) -> Option<u64> {
        self.as_number().and_then(Number::as_u64)
    }

    /// The number as an `f64`.
    pub fn as_f64(self) -> Option<f64> {
        self.as_number().and_then(Number::as_f64)
    }

    /// The string, if this is one.
    pub fn as_str(self) -> Option<&'a str> {
        match self.untagged().kind() {
            Kind::String(text) => Some(text),
            _ => None,
        }
    }

    /// Whether this is a string.
    pub fn is_string(self) -> bool {
        self.as_str().is_some()
    }

    /// The sequence, if this is one.
    pub fn as_sequence(self) -> Option<Seq<'a>> {
        match self.untagged().kind() {
            Kind::Sequence(sequence) => Some(sequence),
            _ => None,
        }
    }

    /// Whether this is a sequence.
    pub fn is_sequence(self) -> bool {
        self.as_sequence().is_some()
    }

    /// The mapping, if this is one.
    pub fn as_mapping(self) -> Option<Map<'a>> {
        match self.untagged().kind() {
            Kind::Mapping(mapping) => Some(mapping),
            _ => None,
        }
    }

    /// Whether this is a mapping.
    pub fn is_mapping(self) -> bool {
        self.as_mapping().is_some()
    }

    /// The value of the string key `key`, if this is a mapping that has it.
    pub fn get(self, key: &str) -> Option<Node<'a>> {
        self.as_mapping().and_then(|mapping| mapping.get(key))
    }

    /// The text a path names this mapping key by: strings as they are, numbers and
    /// booleans as yaml_serde writes them, `null` for null, none for a collection.
    pub fn key_text(self) -> Option<std::borrow::Cow<'a, str>> {
        use std::borrow::Cow;
        match self.untagged().kind() {
            Kind::String(text) => Some(Cow::Borrowed(text)),
            Kind::Number(number) => Some(Cow::Owned(number.to_string())),
            Kind::Bool(boolean) => Some(Cow::Borrowed(if boolean { "true" } else { "false" })),
            Kind::Null => Some(Cow::Borrowed("null")),
            Kind::Sequence(_) | Kind::Mapping(_) | Kind::Tagged(..) => None,
        }
    }

    /// Whether this holds the same value as `other`, as `Value`'s equality says.
    pub fn same_as(self, other: Node<'_>) -> bool {
        match (self.kind(), other.kind()) {
            (Kind::Null, Kind::Null) => true,
            (Kind::Bool(one), Kind::Bool(two)) => one == two,
            (Kind::Number(one), Kind::Number(two)) => one == two,
            (Kind::String(one), Kind::String(two)) => one == two,
            (Kind::Sequence(one), Kind::Sequence(two)) => {
                one.len() == two.len() && one.iter().zip(two.iter()).all(|(a, b)| a.same_as(b))
            }
            (Kind::Mapping(one), Kind::Mapping(two)) => {
                one.len() == two.len()
                    && one
                        .iter()
                        .zip(two.iter())
                        .all(|((key_a, a), (key_b, b))| key_a.same_as(key_b) && a.same_as(b))
            }
            (Kind::Tagged(one, a), Kind::Tagged(two, b)) => one == two && a.same_as(b),
            _ => false,
        }
    }
}

/// A sequence's items.
#[derive(Clone, Copy, Debug)]
pub struct Seq<'a>(SeqInner<'a>);

#[derive(Clone, Copy)]
enum SeqInner<'a> {
    Tree(&'a Tree, &'a [Child]),
    Value(&'a [Value]),
}

impl std::fmt::Debug for SeqInner<'_> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("Seq")
    }
}

impl<'a> Seq<'a> {
    /// How many items.
    pub fn len(self) -> usize {
        match self.0 {
            SeqInner::Tree(_, items) => items.len(),
            SeqInner::Value(items) => items.len(),
        }
    }

    /// Whether it has none.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The item at `index`.
    pub fn get(self, index: usize) -> Option<Node<'a>> {
        match self.0 {
            SeqInner::Tree(tree, items) => items.get(index).map(|item| Node::new(tree, item.node)),
            SeqInner::Value(items) => items.get(index).map(Node::from),
        }
    }

    /// The first item.
    pub fn first(self) -> Option<Node<'a>> {
        self.get(0)
    }

    /// The last item.
    pub fn last(self) -> Option<Node<'a>> {
        self.len().checked_sub(1).and_then(|last| self.get(last))
    }

    /// The items in order.
    pub fn iter(self) -> SeqIter<'a> {
        SeqIter {
            sequence: self,
            front: 0,
            back: self.len(),
        }
    }
}

impl Default for Seq<'_> {
    fn default() -> Self {
        Seq(SeqInner::Value(&[]))
    }
}

impl<'a> IntoIterator for Seq<'a> {
    type Item = Node<'a>;
    type IntoIter = SeqIter<'a>;
    fn into_iter(self) -> SeqIter<'a> {
        self.iter()
    }
}

/// A sequence's items, in order.
#[derive(Clone, Debug)]
pub struct SeqIter<'a> {
    sequence: Seq<'a>,
    front: usize,
    back: usize,
}

impl<'a> Iterator for SeqIter<'a> {
    type Item = Node<'a>;
    fn next(&mut self) -> Option<Node<'a>> {
        (self.front < self.back).then(|| {
            self.front += 1;
            self.sequence.get(self.front - 1)
        })?
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.back - self.front;
        (left, Some(left))
    }
}

impl DoubleEndedIterator for SeqIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        (self.front < self.back).then(|| {
            self.back -= 1;
            self.sequence.get(self.back)
        })?
    }
}

impl ExactSizeIterator for SeqIter<'_> {}

/// A mapping's entries, in the order written.
#[derive(Clone, Copy, Debug)]
pub struct Map<'a>(MapInner<'a>);

#[derive(Clone, Copy)]
enum MapInner<'a> {
    Tree(&'a Tree, u32, &'a [Entry]),
    Value(&'a Mapping),
}

impl std::fmt::Debug for MapInner<'_> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("Map")
    }
}

impl<'a> Map<'a> {
    /// How many entries.
    pub fn len(self) -> usize {
        match self.0 {
            MapInner::Tree(_, _, entries) => entries.len(),
            MapInner::Value(mapping) => mapping.len(),
        }
    }

    /// Whether it has none.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The value of the string key `key` (a key that is an untagged string, as
    /// `Value::get` finds it).
    pub fn get(self, key: &str) -> Option<Node<'a>> {
        match self.0 {
            MapInner::Tree(tree, id, _) => tree
                .get(id, key)
                .map(|entry| Node::new(tree, entry.value.node)),
            MapInner::Value(mapping) => mapping.get(key).map(Node::from),
        }
    }

    /// Whether the string key `key` is there.
    pub fn contains_key(self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The entry at `index`, as (key, value).
    pub fn entry(self, index: usize) -> Option<(Node<'a>, Node<'a>)> {
        match self.0 {
            MapInner::Tree(tree, _, entries) => entries.get(index).map(|entry| {
                (
                    Node::new(tree, entry.key),
                    Node::new(tree, entry.value.node),
                )
            }),
            MapInner::Value(mapping) => mapping
                .iter()
                .nth(index)
                .map(|(key, value)| (Node::from(key), Node::from(value))),
        }
    }

    /// The entries as (key, value), in order.
    pub fn iter(self) -> MapIter<'a> {
        match self.0 {
            MapInner::Tree(..) => MapIter::Tree {
                mapping: self,
                front: 0,
                back: self.len(),
            },
            MapInner::Value(mapping) => MapIter::Value(mapping.iter()),
        }
    }

    /// The keys, in order.
    pub fn keys(self) -> impl Iterator<Item = Node<'a>> + 'a {
        self.iter().map(|(key, _)| key)
    }

    /// The values, in order.
    pub fn values(self) -> impl Iterator<Item = Node<'a>> + 'a {
        self.iter().map(|(_, value)| value)
    }

    /// The mapping copied out.
    pub fn to_value(self) -> Value {
        match self.0 {
            MapInner::Tree(tree, id, _) => tree.to_value(id),
            MapInner::Value(mapping) => Value::Mapping(mapping.clone()),
        }
    }
}

impl<'a> IntoIterator for Map<'a> {
    type Item = (Node<'a>, Node<'a>);
    type IntoIter = MapIter<'a>;
    fn into_iter(self) -> MapIter<'a> {
        self.iter()
    }
}

/// A mapping's entries, in order.
pub enum MapIter<'a> {
    /// A tree's.
    #[doc(hidden)]
    Tree {
        mapping: Map<'a>,
        front: usize,
        back: usize,
    },
    /// A `Value`'s.
    #[doc(hidden)]
    Value(yaml_serde::mapping::Iter<'a>),
}

impl<'a> Iterator for MapIter<'a> {
    type Item = (Node<'a>, Node<'a>);
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            MapIter::Tree {
                mapping,
                front,
                back,
            } => (*front < *back).then(|| {
                *front += 1;
                mapping.entry(*front - 1)
            })?,
            MapIter::Value(iter) => iter
                .next()
                .map(|(key, value)| (Node::from(key), Node::from(value))),
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            MapIter::Tree { front, back, .. } => (*back - *front, Some(*back - *front)),
            MapIter::Value(iter) => iter.size_hint(),
        }
    }
}

impl ExactSizeIterator for MapIter<'_> {}
