//! Code a first visit does not run, loaded the first time it is needed: the steps past
//! Start, the reading of YAML the user imports or edits, and the writing of the design
//! as JSON (saving it, sharing it, sending it to the server).
//!
//! A first visit draws the Start step, the findings and the preview; the other seven steps
//! are most of the page's view code, and reading a ClusterConfig or Karpenter's objects
//! into the design is most of the model's. In the page's build (`cargo xtask
//! build-frontend`, which passes `--cfg page_split`) each is a split point: `wasm-split`
//! moves the code only it reaches into its own wasm file, fetched when the step is first
//! opened or the first text is read. Everywhere else (browser tests, clippy) they are
//! ordinary functions and count as loaded from the start.
//!
//! The split points are made by `wasm_split_helpers`' macro (through Leptos's re-export),
//! whose generated code declares the chunk loader as an `unsafe extern` import: the one
//! place the page allows unsafe code.
#![allow(unsafe_code)]

use leptos::prelude::*;

use shared::Spec;
use shared::documents::import::TextImportError;
use shared::lint::editable::EditableFile;

use crate::Step;

/// Which steps' code is loaded, and which failed to load.
#[derive(Clone, Copy)]
pub struct LoadedSteps {
    loaded: RwSignal<[bool; Step::ALL.len()]>,
    failed: RwSignal<[bool; Step::ALL.len()]>,
}

impl LoadedSteps {
    /// Steps the page's own file holds are loaded from the start.
    pub fn new() -> Self {
        let loaded = Step::ALL.map(|step| !split::IS_SPLIT || step == Step::Start);
        LoadedSteps {
            loaded: RwSignal::new(loaded),
            failed: RwSignal::new([false; Step::ALL.len()]),
        }
    }

    /// Whether `step` can be drawn now (tracked).
    pub fn is_loaded(self, step: Step) -> bool {
        self.loaded.with(|loaded| loaded[step.number() - 1])
    }

    /// Whether the last try to load `step`'s code failed (tracked).
    pub fn failed(self, step: Step) -> bool {
        self.failed.with(|failed| failed[step.number() - 1])
    }

    /// Runs `then` once `step` is drawn: in the next frame when its code is loaded, else
    /// after its file has arrived and the step is on screen. Loads started twice share
    /// one fetch.
    pub fn when_shown(self, step: Step, then: impl FnOnce() + 'static) {
        let index = step.number() - 1;
        if self.loaded.with_untracked(|loaded| loaded[index]) {
            request_animation_frame(then);
            return;
        }
        if self.failed.with_untracked(|failed| failed[index]) {
            self.failed.update(|failed| failed[index] = false);
        }
        leptos::task::spawn_local(async move {
            if split::load(step).await {
                if !self.loaded.with_untracked(|loaded| loaded[index]) {
                    self.loaded.update(|loaded| loaded[index] = true);
                }
                request_animation_frame(then);
            } else {
                self.failed.update(|failed| failed[index] = true);
            }
        });
    }

    /// The view of a loaded step; `None` while its code is still on its way.
    pub fn view(self, step: Step) -> Option<AnyView> {
        split::view(step)
    }
}

impl Default for LoadedSteps {
    fn default() -> Self {
        Self::new()
    }
}

/// What a text is read as.
#[derive(Clone)]
pub enum Reading {
    /// Pasted or chosen in the import box: any file the studio reads.
    Import,
    /// One of the studio's files, edited in the preview.
    File(EditableFile),
    /// A design as the page saves it (studio.json): the autosave, a draft, a share link.
    Saved,
    /// The value to put wherever the current design holds the placeholder `token`
    /// (the checklist's "Fill in"), which reads the design back.
    Fill {
        /// The placeholder.
        token: String,
    },
}

/// A read design, with the import's summary for [`Reading::Import`].
pub type Read = Result<(Spec, String), TextImportError>;

/// Whether the reading code is loaded.
static READER_LOADED: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(!split::IS_SPLIT);

/// Reads `text` as `reading` against the current design and hands the result to `then`:
/// at once when the reading code is loaded, else once its file has arrived (a file that
/// cannot be loaded is said as the reading's error).
pub fn read(reading: Reading, text: String, current: Spec, then: impl FnOnce(Read) + 'static) {
    // `current` is the caller's copy: `then` may change the design, which must not be
    // borrowed while it runs.
    if let Some(read) = read_if_loaded(&reading, &text, &current) {
        then(read);
        return;
    }
    leptos::task::spawn_local(async move { then(read_later(reading, text, current).await) });
}

/// [`read`] for code that can wait: loads the reading code first when it is not loaded.
pub async fn read_later(reading: Reading, text: String, current: Spec) -> Read {
    use std::sync::atomic::Ordering;
    if let Some(read) = read_if_loaded(&reading, &text, &current) {
        return read;
    }
    if split::load_reader().await {
        READER_LOADED.store(true, Ordering::Relaxed);
        if let Some(read) = split::read_now(&reading, &text, &current) {
            return read;
        }
    }
    Err(TextImportError {
        document: None,
        line: 0,
        column: 0,
        syntax: false,
        message: "The code that reads YAML could not be loaded. Check the connection to the \
                  server, then try again."
            .to_owned(),
    })
}

/// The design as JSON (studio.json), when the code that writes it is loaded.
pub fn json_if_loaded(spec: &Spec) -> Option<String> {
    if READER_LOADED.load(std::sync::atomic::Ordering::Relaxed) {
        split::write_now(spec)
    } else {
        None
    }
}

/// The design as JSON, loading the code that writes it first when it is not loaded; why
/// not, in words, when that code cannot be loaded.
pub async fn json_later(spec: &Spec) -> Result<String, String> {
    if let Some(json) = json_if_loaded(spec) {
        return Ok(json);
    }
    if split::load_reader().await {
        READER_LOADED.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(json) = split::write_now(spec) {
            return Ok(json);
        }
    }
    Err("the page's code that writes the design could not be loaded; check the connection to the server".to_owned())
}

fn read_if_loaded(reading: &Reading, text: &str, current: &Spec) -> Option<Read> {
    if READER_LOADED.load(std::sync::atomic::Ordering::Relaxed) {
        split::read_now(reading, text, current)
    } else {
        None
    }
}

/// Reads `text` with the loaded reading code.
fn read_text(reading: &Reading, text: &str, current: &Spec) -> Read {
    match reading {
        Reading::Import => shared::documents::import::import_text(text, current),
        Reading::File(file) => file.read(text, current).map(|spec| (spec, String::new())),
        Reading::Saved => crate::json::from_str::<Spec>(text)
            .map(|spec| (spec, String::new()))
            .map_err(|message| TextImportError {
                document: None,
                line: 0,
                column: 0,
                syntax: false,
                message,
            }),
        Reading::Fill { token } => Ok((
            shared::lint::placeholders::fill(current, token, text),
            String::new(),
        )),
    }
}

/// Declares one split point per step: `$view` draws the step, `$load` fetches its file.
macro_rules! split_steps {
    ($($step:ident => $view:ident, $load:ident, $component:path;)*) => {
        #[cfg(page_split)]
        mod split {
            use leptos::prelude::*;
            use leptos::wasm_split::{SplitLoaderError, wasm_split};
            use std::future::Future;
            use std::task::{Context, Poll, Waker};

            use crate::Step;

            pub const IS_SPLIT: bool = true;

            $(
                #[wasm_split($view, wasm_split_path = ::leptos::wasm_split, preload($load), fallible)]
                fn $view() -> Result<AnyView, SplitLoaderError> {
                    Ok(view! { <$component /> }.into_any())
                }
            )*

            #[wasm_split(reader, wasm_split_path = ::leptos::wasm_split, preload(preload_reader), fallible)]
            fn reader(
                reading: &super::Reading,
                text: &str,
                current: &shared::Spec,
            ) -> Result<super::Read, SplitLoaderError> {
                Ok(super::read_text(reading, text, current))
            }

            // In the reading code's file too: writing a design as JSON is needed no sooner.
            #[wasm_split(reader, wasm_split_path = ::leptos::wasm_split, preload(preload_writer), fallible)]
            fn writer(spec: &shared::Spec) -> Result<String, SplitLoaderError> {
                Ok(spec.to_json())
            }

            /// The design as JSON with the loaded code; `None` if it is not loaded.
            pub fn write_now(spec: &shared::Spec) -> Option<String> {
                now(writer(spec))
            }

            /// Fetches the reading code's file; false when it could not be loaded.
            pub async fn load_reader() -> bool {
                // One file holds both; each split function keeps its own loaded state.
                preload_reader().await.is_ok() && preload_writer().await.is_ok()
            }

            /// Reads with the loaded reading code; `None` if it is not loaded.
            pub fn read_now(
                reading: &super::Reading,
                text: &str,
                current: &shared::Spec,
            ) -> Option<super::Read> {
                now(reader(reading, text, current))
            }

            /// Fetches `step`'s file; false when it could not be loaded.
            pub async fn load(step: Step) -> bool {
                match step {
                    $(Step::$step => $load().await.is_ok(),)*
                    Step::Start => true,
                }
            }

            /// A loaded step's view.
            pub fn view(step: Step) -> Option<AnyView> {
                match step {
                    $(Step::$step => now($view()),)*
                    Step::Start => Some(view! { <crate::StartStep /> }.into_any()),
                }
            }

            /// A split function whose file is loaded completes at its first poll: its
            /// loader is already initialised, so nothing is awaited. `None` when the
            /// file is not loaded (or failed to).
            fn now<T>(future: impl Future<Output = Result<T, SplitLoaderError>>) -> Option<T> {
                let future = std::pin::pin!(future);
                match future.poll(&mut Context::from_waker(Waker::noop())) {
                    Poll::Ready(Ok(value)) => Some(value),
                    _ => None,
                }
            }
        }

        #[cfg(not(page_split))]
        mod split {
            use leptos::prelude::*;

            use crate::Step;

            pub const IS_SPLIT: bool = false;

            pub async fn load(_step: Step) -> bool {
                true
            }

            pub async fn load_reader() -> bool {
                true
            }

            pub fn write_now(spec: &shared::Spec) -> Option<String> {
                Some(spec.to_json())
            }

            pub fn read_now(
                reading: &super::Reading,
                text: &str,
                current: &shared::Spec,
            ) -> Option<super::Read> {
                Some(super::read_text(reading, text, current))
            }


            pub fn view(step: Step) -> Option<AnyView> {
                Some(match step {
                    $(Step::$step => view! { <$component /> }.into_any(),)*
                    Step::Start => view! { <crate::StartStep /> }.into_any(),
                })
            }
        }
    };
}

split_steps! {
    Cluster => cluster_step_view, load_cluster_step, crate::ClusterStep;
    Network => network_step_view, load_network_step, crate::network_step::NetworkStep;
    NodeGroups => node_groups_step_view, load_node_groups_step, crate::node_groups_step::NodeGroupsStep;
    Capacity => capacity_step_view, load_capacity_step, crate::capacity_step::CapacityStep;
    Karpenter => karpenter_step_view, load_karpenter_step, crate::karpenter_step::KarpenterStep;
    Addons => addons_step_view, load_addons_step, crate::addons_step::AddonsStep;
    Review => review_step_view, load_review_step, crate::review_step::ReviewStep;
}
