//! A YAML document's values and places, held compactly.
//!
//! One document of the YAML reader is a [`Tree`]: a few flat vectors of
//! fixed-size records and one string of every scalar's text. A node is 12 bytes, a
//! sequence item 12 and a mapping entry 24; a string, a number or `true` written twice is
//! kept once (strings up to [`INTERNED_TEXT`] bytes), so keys repeated by thousands of node
//! groups cost their text once. An alias shares the anchored node. A text of N bytes thus
//! reads into a few times N, where `yaml_serde::Value` took over ten times.
//!
//! A `Node` reads a tree as `Value` reads; [`Tree::to_value`] copies a part
//! out as a `Value` for what needs one (deserialising into typed structs, say).

use std::hash::BuildHasher;

use hashbrown::HashTable;
use yaml_serde::value::{Tag, TaggedValue};
use yaml_serde::{Mapping, Number, Value};

/// Strings up to this many bytes are kept once however often they are written.
const INTERNED_TEXT: usize = 64;

/// Mappings of this many entries or more get an index by key.
pub(crate) const INDEXED_ENTRIES: usize = 16;

/// The node every `null` shares; `false` and `true` follow it.
pub(crate) const NULL: u32 = 0;
const FALSE: u32 = 1;
const TRUE: u32 = 2;

/// A line and column as the tree keeps them, four bytes each (a text of more than four
/// billion lines or columns reads with its places saturated there).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Place {
    pub(crate) line: u32,
    pub(crate) column: u32,
}

/// A count or offset as the tree stores it.
pub(crate) fn saturated(count: usize) -> u32 {
    u32::try_from(count).unwrap_or(u32::MAX)
}

/// One value: a scalar, or a run of items or entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TreeNode {
    Null,
    Bool(bool),
    /// Index in [`Tree::numbers`].
    Number(u32),
    /// Range of [`Tree::text`].
    String {
        start: u32,
        len: u32,
    },
    /// Run of [`Tree::items`].
    Sequence {
        start: u32,
        len: u32,
    },
    /// Run of [`Tree::entries`].
    Mapping {
        start: u32,
        len: u32,
    },
    /// Index in [`Tree::tags`].
    Tagged(u32),
}

/// A value where it is written: its place in the text and its node.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Child {
    pub(crate) place: Place,
    pub(crate) node: u32,
}

/// A mapping entry: its key's node and place, and its value.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub(crate) key: u32,
    pub(crate) key_place: Place,
    pub(crate) value: Child,
}

/// One document's values and places (see the module docs).
#[derive(Clone, Debug)]
pub struct Tree {
    nodes: Vec<TreeNode>,
    items: Vec<Child>,
    entries: Vec<Entry>,
    text: String,
    numbers: Vec<Number>,
    /// A local tag and the node it tags.
    tags: Vec<(Tag, u32)>,
    /// For each mapping of [`INDEXED_ENTRIES`] entries or more, by node: the offset in its
    /// run of the first entry of each key text, so finding a key among 100,000 is one look-up.
    indexes: std::collections::HashMap<u32, HashTable<u32>>,
    hasher: std::hash::RandomState,
    root: Child,
}

impl Default for Tree {
    fn default() -> Tree {
        Tree {
            nodes: vec![TreeNode::Null, TreeNode::Bool(false), TreeNode::Bool(true)],
            items: Vec::new(),
            entries: Vec::new(),
            text: String::new(),
            numbers: Vec::new(),
            tags: Vec::new(),
            indexes: std::collections::HashMap::new(),
            hasher: std::hash::RandomState::new(),
            root: Child::default(),
        }
    }
}

impl Tree {
    pub(crate) fn node(&self, id: u32) -> TreeNode {
        self.nodes
            .get(id as usize)
            .copied()
            .unwrap_or(TreeNode::Null)
    }

    pub(crate) fn root(&self) -> Child {
        self.root
    }

    pub(crate) fn string(&self, start: u32, len: u32) -> &str {
        let start = start as usize;
        self.text
            .get(start..start.saturating_add(len as usize))
            .unwrap_or_default()
    }

    pub(crate) fn number(&self, index: u32) -> &Number {
        static ZERO: std::sync::OnceLock<Number> = std::sync::OnceLock::new();
        self.numbers
            .get(index as usize)
            .unwrap_or_else(|| ZERO.get_or_init(|| Number::from(0)))
    }

    pub(crate) fn tag(&self, index: u32) -> (&Tag, u32) {
        static NONE: std::sync::OnceLock<Tag> = std::sync::OnceLock::new();
        self.tags.get(index as usize).map_or_else(
            || (NONE.get_or_init(|| Tag::new("!")), NULL),
            |(tag, node)| (tag, *node),
        )
    }

    pub(crate) fn items(&self, start: u32, len: u32) -> &[Child] {
        run(&self.items, start, len)
    }

    pub(crate) fn entries(&self, start: u32, len: u32) -> &[Entry] {
        run(&self.entries, start, len)
    }

    /// The items of the sequence at `id` (none for anything else).
    pub(crate) fn items_of(&self, id: u32) -> &[Child] {
        match self.node(id) {
            TreeNode::Sequence { start, len } => self.items(start, len),
            _ => &[],
        }
    }

    /// The node under any tags.
    pub(crate) fn untagged(&self, mut id: u32) -> u32 {
        // Tags nest at most as deep as the document; each step goes to a lower node.
        while let TreeNode::Tagged(index) = self.node(id) {
            id = self.tag(index).1;
        }
        id
    }

    /// The text a path names the key at `id` by (as `Node::key_text`).
    pub(crate) fn key_text(&self, id: u32) -> Option<std::borrow::Cow<'_, str>> {
        use std::borrow::Cow;
        match self.node(self.untagged(id)) {
            TreeNode::String { start, len } => Some(Cow::Borrowed(self.string(start, len))),
            TreeNode::Number(index) => Some(Cow::Owned(self.number(index).to_string())),
            TreeNode::Bool(boolean) => Some(Cow::Borrowed(if boolean { "true" } else { "false" })),
            TreeNode::Null => Some(Cow::Borrowed("null")),
            TreeNode::Sequence { .. } | TreeNode::Mapping { .. } | TreeNode::Tagged(_) => None,
        }
    }

    /// The first entry whose key text is `key` in the mapping at `id` (under its tags).
    pub(crate) fn entry_by_text(&self, id: u32, key: &str) -> Option<&Entry> {
        let id = self.untagged(id);
        let TreeNode::Mapping { start, len } = self.node(id) else {
            return None;
        };
        let entries = self.entries(start, len);
        match self.indexes.get(&id) {
            Some(index) => index
                .find(self.hasher.hash_one(key), |offset| {
                    entries
                        .get(*offset as usize)
                        .and_then(|entry| self.key_text(entry.key))
                        .is_some_and(|text| text == key)
                })
                .and_then(|offset| entries.get(*offset as usize)),
            None => entries
                .iter()
                .find(|entry| self.key_text(entry.key).is_some_and(|text| text == key)),
        }
    }

    /// The value of the string key `key` in the mapping at `id` (under its tags), as
    /// `Value::get` finds it: only a key that is an untagged string matches.
    pub(crate) fn get(&self, id: u32, key: &str) -> Option<&Entry> {
        let is_string = |entry: &&Entry| matches!(self.node(entry.key), TreeNode::String { .. });
        let first = self.entry_by_text(id, key)?;
        if is_string(&first) {
            return Some(first);
        }
        // Rare: `1: a` and `"1": b` in one mapping; the string key is the later one.
        let TreeNode::Mapping { start, len } = self.node(self.untagged(id)) else {
            return None;
        };
        self.entries(start, len).iter().find(|entry| {
            is_string(entry) && self.key_text(entry.key).is_some_and(|text| text == key)
        })
    }

    /// Whether the keys at `left` and `right` are the same key, as `Value`'s equality says.
    pub(crate) fn same_key(&self, left: u32, right: u32) -> bool {
        if left == right {
            return true;
        }
        match (self.node(left), self.node(right)) {
            (
                TreeNode::String { start, len },
                TreeNode::String {
                    start: other,
                    len: other_len,
                },
            ) => self.string(start, len) == self.string(other, other_len),
            (TreeNode::Number(one), TreeNode::Number(other)) => {
                self.number(one) == self.number(other)
            }
            (TreeNode::Sequence { .. } | TreeNode::Mapping { .. } | TreeNode::Tagged(_), _)
            | (_, TreeNode::Sequence { .. } | TreeNode::Mapping { .. } | TreeNode::Tagged(_)) => {
                self.to_value(left) == self.to_value(right)
            }
            (one, other) => one == other,
        }
    }

    /// The value at `id`, copied out.
    pub(crate) fn to_value(&self, id: u32) -> Value {
        match self.node(id) {
            TreeNode::Null => Value::Null,
            TreeNode::Bool(boolean) => Value::Bool(boolean),
            TreeNode::Number(index) => Value::Number(self.number(index).clone()),
            TreeNode::String { start, len } => Value::String(self.string(start, len).to_owned()),
            TreeNode::Sequence { start, len } => Value::Sequence(
                self.items(start, len)
                    .iter()
                    .map(|item| self.to_value(item.node))
                    .collect(),
            ),
            TreeNode::Mapping { start, len } => {
                let entries = self.entries(start, len);
                let mut mapping = Mapping::with_capacity(entries.len());
                for entry in entries {
                    mapping.insert(self.to_value(entry.key), self.to_value(entry.value.node));
                }
                Value::Mapping(mapping)
            }
            TreeNode::Tagged(index) => {
                let (tag, node) = self.tag(index);
                Value::Tagged(Box::new(TaggedValue {
                    tag: tag.clone(),
                    value: self.to_value(node),
                }))
            }
        }
    }

    /// The bytes the tree holds: its vectors' capacities, its text and its indexes.
    pub fn held_bytes(&self) -> usize {
        use std::mem::size_of;
        self.nodes.capacity() * size_of::<TreeNode>()
            + self.items.capacity() * size_of::<Child>()
            + self.entries.capacity() * size_of::<Entry>()
            + self.text.capacity()
            + self.numbers.capacity() * size_of::<Number>()
            + self
                .tags
                .iter()
                .map(|(tag, _)| tag.to_string().len() + size_of::<(Tag, u32)>())
                .sum::<usize>()
            + self
                .indexes
                .values()
                .map(|index| index.capacity() * (size_of::<u32>() + 1) + 48)
                .sum::<usize>()
    }

    /// Every place in the tree, to move.
    pub(crate) fn places_mut(&mut self) -> impl Iterator<Item = &mut Place> {
        let root = std::iter::once(&mut self.root.place);
        let items = self.items.iter_mut().map(|item| &mut item.place);
        let entries = self
            .entries
            .iter_mut()
            .flat_map(|entry| [&mut entry.key_place, &mut entry.value.place]);
        root.chain(items).chain(entries)
    }
}

/// `len` records of `all` from `start` (none past its end).
fn run<T>(all: &[T], start: u32, len: u32) -> &[T] {
    let start = start as usize;
    all.get(start..start.saturating_add(len as usize))
        .unwrap_or_default()
}

/// A mapping being read: its entries, and an index by key text once it has
/// [`INDEXED_ENTRIES`] of them.
#[derive(Default)]
pub(crate) struct OpenEntries {
    list: Vec<Entry>,
    index: Option<HashTable<u32>>,
    /// Offsets of entries a `<<` merge put there, which a later explicit key overrides.
    merged: Vec<u32>,
}

impl OpenEntries {
    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The offset of the entry whose key is the same key as `key`.
    fn find(&self, builder: &Builder, key: u32) -> Option<usize> {
        let tree = &builder.tree;
        let text = tree.key_text(key);
        match (&self.index, &text) {
            (Some(index), Some(text)) => {
                let first = index.find(tree.hasher.hash_one(text.as_ref()), |offset| {
                    self.list
                        .get(*offset as usize)
                        .and_then(|entry| tree.key_text(entry.key))
                        .is_some_and(|other| other == *text)
                });
                match first {
                    Some(offset) if tree.same_key(self.list[*offset as usize].key, key) => {
                        Some(*offset as usize)
                    }
                    // A key of another type with the same text (`1` and `"1"`): read them all.
                    Some(_) => self.scan(tree, key),
                    None => None,
                }
            }
            _ => self.scan(tree, key),
        }
    }

    fn scan(&self, tree: &Tree, key: u32) -> Option<usize> {
        self.list
            .iter()
            .position(|entry| tree.same_key(entry.key, key))
    }

    /// Whether the entry at `offset` came from a merge.
    fn is_merged(&self, offset: usize) -> bool {
        self.merged.contains(&saturated(offset))
    }

    fn push(&mut self, tree: &Tree, entry: Entry) {
        let offset = saturated(self.list.len());
        self.list.push(entry);
        if let Some(index) = &mut self.index {
            if let Some(text) = tree.key_text(entry.key) {
                let hash = tree.hasher.hash_one(text.as_ref());
                let list = &self.list;
                let present = index
                    .find(hash, |other| {
                        tree.key_text(list[*other as usize].key)
                            .is_some_and(|other| other == text)
                    })
                    .is_some();
                if !present {
                    index.insert_unique(hash, offset, |other| {
                        key_hash(tree, list[*other as usize].key)
                    });
                }
            }
        } else if self.list.len() == INDEXED_ENTRIES {
            self.index = Some(build_index(tree, &self.list));
        }
    }
}

fn key_hash(tree: &Tree, key: u32) -> u64 {
    tree.hasher
        .hash_one(tree.key_text(key).as_deref().unwrap_or_default())
}

fn build_index(tree: &Tree, list: &[Entry]) -> HashTable<u32> {
    let mut index = HashTable::with_capacity(list.len());
    for (offset, entry) in list.iter().enumerate() {
        let Some(text) = tree.key_text(entry.key) else {
            continue;
        };
        let hash = tree.hasher.hash_one(text.as_ref());
        let present = index
            .find(hash, |other: &u32| {
                tree.key_text(list[*other as usize].key)
                    .is_some_and(|other| other == text)
            })
            .is_some();
        if !present {
            index.insert_unique(hash, saturated(offset), |other| {
                key_hash(tree, list[*other as usize].key)
            });
        }
    }
    index
}

/// What [`Builder::put`] did with an entry.
pub(crate) enum Put {
    Added,
    Replaced,
    /// The key is in the mapping already, not from a merge: a duplicate.
    Duplicate,
}

/// Builds a [`Tree`], keeping repeated scalars once.
pub(crate) struct Builder {
    tree: Tree,
    /// Nodes of strings up to [`INTERNED_TEXT`] bytes, by their text.
    strings: HashTable<u32>,
    /// Nodes of numbers, by their kind and bits (so `0.0` and `-0.0` stay two).
    numbers: std::collections::HashMap<(u8, u64), u32>,
}

impl Builder {
    pub(crate) fn new() -> Builder {
        Builder {
            tree: Tree::default(),
            strings: HashTable::new(),
            numbers: std::collections::HashMap::new(),
        }
    }

    pub(crate) fn tree(&self) -> &Tree {
        &self.tree
    }

    fn push_node(&mut self, node: TreeNode) -> u32 {
        self.tree.nodes.push(node);
        saturated(self.tree.nodes.len() - 1)
    }

    pub(crate) fn string(&mut self, text: &str) -> u32 {
        let interned = text.len() <= INTERNED_TEXT;
        let hash = self.tree.hasher.hash_one(text);
        if interned {
            let tree = &self.tree;
            let found = self.strings.find(hash, |node| match tree.node(*node) {
                TreeNode::String { start, len } => tree.string(start, len) == text,
                _ => false,
            });
            if let Some(node) = found {
                return *node;
            }
        }
        let start = saturated(self.tree.text.len());
        self.tree.text.push_str(text);
        let node = self.push_node(TreeNode::String {
            start,
            len: saturated(text.len()),
        });
        if interned {
            let tree = &self.tree;
            self.strings
                .insert_unique(hash, node, |node| match tree.node(*node) {
                    TreeNode::String { start, len } => {
                        tree.hasher.hash_one(tree.string(start, len))
                    }
                    _ => 0,
                });
        }
        node
    }

    pub(crate) fn number(&mut self, number: &Number) -> u32 {
        let key = if let Some(unsigned) = number.as_u64() {
            (0, unsigned)
        } else if let Some(signed) = number.as_i64() {
            (1, signed.cast_unsigned())
        } else {
            (2, number.as_f64().unwrap_or_default().to_bits())
        };
        if let Some(node) = self.numbers.get(&key) {
            return *node;
        }
        self.tree.numbers.push(number.clone());
        let index = saturated(self.tree.numbers.len() - 1);
        let node = self.push_node(TreeNode::Number(index));
        self.numbers.insert(key, node);
        node
    }

    pub(crate) fn tagged(&mut self, tag: Tag, node: u32) -> u32 {
        self.tree.tags.push((tag, node));
        let index = saturated(self.tree.tags.len() - 1);
        self.push_node(TreeNode::Tagged(index))
    }

    /// A node for `value` and everything in it, places at line 0.
    pub(crate) fn value(&mut self, value: &Value) -> u32 {
        match value {
            Value::Null => NULL,
            Value::Bool(false) => FALSE,
            Value::Bool(true) => TRUE,
            Value::Number(number) => self.number(number),
            Value::String(text) => self.string(text),
            Value::Sequence(items) => {
                let children: Vec<Child> = items
                    .iter()
                    .map(|item| Child {
                        place: Place::default(),
                        node: self.value(item),
                    })
                    .collect();
                self.sequence(children)
            }
            Value::Mapping(mapping) => {
                let mut entries = OpenEntries::default();
                for (key, item) in mapping {
                    let entry = Entry {
                        key: self.value(key),
                        key_place: Place::default(),
                        value: Child {
                            place: Place::default(),
                            node: self.value(item),
                        },
                    };
                    // A Mapping's keys are distinct already.
                    entries.push(&self.tree, entry);
                }
                self.mapping(entries)
            }
            Value::Tagged(tagged) => {
                let inner = self.value(&tagged.value);
                self.tagged(tagged.tag.clone(), inner)
            }
        }
    }

    /// Adds `entry` to a mapping being read: at the end, or over the entry of the same key
    /// when that came from a merge or `merging` (a merge replaces keys set before it).
    pub(crate) fn put(&mut self, open: &mut OpenEntries, entry: Entry, merging: bool) -> Put {
        match open.find(self, entry.key) {
            Some(offset) => {
                let from_merge = open.is_merged(offset);
                if !merging && !from_merge {
                    return Put::Duplicate;
                }
                open.list[offset] = entry;
                if !merging {
                    open.merged.retain(|merged| *merged as usize != offset);
                } else if !from_merge {
                    open.merged.push(saturated(offset));
                }
                Put::Replaced
            }
            None => {
                if merging {
                    open.merged.push(saturated(open.list.len()));
                }
                open.push(&self.tree, entry);
                Put::Added
            }
        }
    }

    pub(crate) fn sequence(&mut self, mut children: Vec<Child>) -> u32 {
        let start = saturated(self.tree.items.len());
        let len = saturated(children.len());
        self.tree.items.append(&mut children);
        self.push_node(TreeNode::Sequence { start, len })
    }

    pub(crate) fn mapping(&mut self, open: OpenEntries) -> u32 {
        let start = saturated(self.tree.entries.len());
        let len = saturated(open.list.len());
        let index = open.index;
        self.tree.entries.extend(open.list);
        let node = self.push_node(TreeNode::Mapping { start, len });
        if let Some(index) = index {
            self.tree.indexes.insert(node, index);
        }
        node
    }

    /// The entries of the mapping at `id`, for a merge to copy.
    pub(crate) fn entries_of(&self, id: u32) -> Vec<Entry> {
        match self.tree.node(id) {
            TreeNode::Mapping { start, len } => self.tree.entries(start, len).to_vec(),
            _ => Vec::new(),
        }
    }

    pub(crate) fn finish(self, root: Child) -> Tree {
        let mut tree = self.tree;
        tree.root = root;
        tree.nodes.shrink_to_fit();
        tree.items.shrink_to_fit();
        tree.entries.shrink_to_fit();
        tree.text.shrink_to_fit();
        tree.numbers.shrink_to_fit();
        tree
    }
}
