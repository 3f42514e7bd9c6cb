//! Binding inputs to the spec in one line: a [`Bound`] is one object of the spec (a node
//! group, a NodePool, one of its taints) with its spec path, found again on every read and
//! write; its [`get`](Bound::get) and [`set`](Bound::set) give a field's value signal and
//! setter, and [`place`](Bound::place) the path and label of one of its fields, from
//! [`shared::fields`]. [`Rows`] shows a list of such objects, each in its own
//! fieldset with a remove button.

use std::sync::Arc;

use leptos::prelude::*;
use shared::Spec;
use shared::fields::{self, Field};

use crate::state::step::field_id;
use crate::state::studio::Studio;
use crate::widgets::fields::{FieldFindings, Place};

type Find<T> = Arc<dyn Fn(&Spec) -> Option<&T> + Send + Sync>;
type FindMut<T> = Arc<dyn Fn(&mut Spec) -> Option<&mut T> + Send + Sync>;

/// One object of the spec. A row whose object was removed reads defaults and writes
/// nothing, so an edit racing a removal cannot land on the wrong object.
pub struct Bound<T: 'static> {
    studio: Studio,
    path: Arc<str>,
    find: Find<T>,
    find_mut: FindMut<T>,
}

impl<T: 'static> Clone for Bound<T> {
    fn clone(&self) -> Self {
        Bound {
            studio: self.studio,
            path: self.path.clone(),
            find: self.find.clone(),
            find_mut: self.find_mut.clone(),
        }
    }
}

/// `field!(bound, a.b)`: the bound object's field `a.b`, itself bound, at path `….a.b`
/// (the Rust names, which are the spec's keys wherever it is used).
macro_rules! field {
    ($bound:expr, $($field:ident).+) => {
        $bound.then(
            concat!($(stringify!($field), "."),+).trim_end_matches('.'),
            |object| Some(&object.$($field).+),
            |object| Some(&mut object.$($field).+),
        )
    };
}
pub(crate) use field;

impl<T: 'static> Bound<T> {
    /// The object at spec path `path` that `find` and `find_mut` locate in the studio's spec.
    pub fn new(
        studio: Studio,
        path: impl Into<String>,
        find: impl Fn(&Spec) -> Option<&T> + Send + Sync + 'static,
        find_mut: impl Fn(&mut Spec) -> Option<&mut T> + Send + Sync + 'static,
    ) -> Bound<T> {
        Bound {
            studio,
            path: path.into().into(),
            find: Arc::new(find),
            find_mut: Arc::new(find_mut),
        }
    }

    /// The object's spec path (`node_groups[2]`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The path and label of the object's field `field`.
    pub fn place(&self, field: Field) -> Place {
        let path = field.in_object(&self.path);
        debug_assert!(
            field.is(&fields::pattern(&path)),
            "{path} is not {}",
            field.key
        );
        Place::new(path, field.label)
    }

    /// Reads the object (tracked), or the default when it is gone.
    pub fn read<V: Default>(&self, read: impl FnOnce(&T) -> V) -> V {
        self.studio
            .spec
            .with(|spec| (self.find)(spec).map(read).unwrap_or_default())
    }

    /// Changes the object, when it exists.
    pub fn write(&self, write: impl FnOnce(&mut T)) {
        self.studio.spec.update(|spec| {
            if let Some(object) = (self.find_mut)(spec) {
                write(object);
            }
        });
    }

    /// A signal of one value read from the object.
    pub fn get<V>(&self, read: impl Fn(&T) -> V + Send + Sync + 'static) -> Signal<V>
    where
        V: Default + Clone + Send + Sync + 'static,
    {
        let bound = self.clone();
        Signal::derive(move || bound.read(&read))
    }

    /// A setter that writes one value into the object.
    pub fn set<V: 'static>(
        &self,
        write: impl Fn(&mut T, V) + Send + Sync + 'static,
    ) -> Callback<V> {
        let bound = self.clone();
        Callback::new(move |value| bound.write(|object| write(object, value)))
    }

    /// A part of the object at its path `key`, bound in turn.
    pub fn then<U: 'static>(
        &self,
        key: &str,
        find: impl Fn(&T) -> Option<&U> + Send + Sync + 'static,
        find_mut: impl Fn(&mut T) -> Option<&mut U> + Send + Sync + 'static,
    ) -> Bound<U> {
        let (outer, outer_mut) = (self.find.clone(), self.find_mut.clone());
        let path = if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.path)
        };
        Bound::new(
            self.studio,
            path,
            move |spec| outer(spec).and_then(&find),
            move |spec| outer_mut(spec).and_then(&find_mut),
        )
    }
}

impl<U: 'static> Bound<Vec<U>> {
    /// Item `index` of the list.
    pub fn at(&self, index: usize) -> Bound<U> {
        let (outer, outer_mut) = (self.find.clone(), self.find_mut.clone());
        Bound::new(
            self.studio,
            format!("{}[{index}]", self.path),
            move |spec| outer(spec).and_then(|items| items.get(index)),
            move |spec| outer_mut(spec).and_then(|items| items.get_mut(index)),
        )
    }
}

/// The items of a list, each in a fieldset titled "`noun` N" with its findings and a
/// "Remove `noun` N" button, then an add button.
#[component]
pub fn Rows<T, R, V>(
    /// The list; row N is at its path `[N]`.
    list: Bound<Vec<T>>,
    /// What one item is called ("Taint").
    noun: &'static str,
    /// Class of each row's fieldset, besides `row`.
    class: &'static str,
    /// The inputs of one row, given its item.
    row: R,
    /// Label of the add button.
    add_label: &'static str,
    /// Adds an item.
    #[prop(into)]
    add: Callback<()>,
) -> impl IntoView
where
    T: Send + Sync + 'static,
    R: Fn(Bound<T>) -> V + Send + Sync + 'static,
    V: IntoView + 'static,
{
    let count = Memo::new({
        let list = list.clone();
        move |_| list.read(|items| items.len())
    });
    let row = Arc::new(row);
    let rows = move || {
        (0..count.get())
            .map(|index| {
                let item = list.at(index);
                let item_path = item.path().to_owned();
                let remove = list.clone();
                view! {
                    <fieldset class=format!("row {class}") id=field_id(&item_path) tabindex="-1">
                        <legend>{format!("{noun} {}", index + 1)}</legend>
                        {row(item)}
                        <FieldFindings path=item_path.clone() />
                        <button
                            type="button"
                            class="remove"
                            on:click=move |_| remove.write(|items| {
                                if index < items.len() {
                                    items.remove(index);
                                }
                            })
                        >
                            {format!("Remove {} {}", noun.to_lowercase(), index + 1)}
                        </button>
                    </fieldset>
                }
            })
            .collect_view()
    };
    view! {
        {rows}
        <button type="button" on:click=move |_| add.run(())>{add_label}</button>
    }
}
