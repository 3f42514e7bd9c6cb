//! Reading texts into a design (an import, an edited file, a saved design, a placeholder's
//! value) and writing the design as JSON: code a first visit does not run. In the page's
//! build (`cargo xtask build-frontend`, which passes `--cfg page_split`) it is a split
//! point: `wasm-split` moves the code only it reaches into its own wasm file, fetched the
//! first time a text is read or the design is written. Everywhere else (browser tests,
//! clippy) these are ordinary functions, loaded from the start.
//!
//! The split points are made by `wasm_split_helpers`' macro (through Leptos's re-export),
//! whose generated code declares the chunk loader as an `unsafe extern` import: one of the
//! two places the page allows unsafe code (the steps' split points are the other).
#![allow(unsafe_code)]

use shared::Spec;
use shared::documents::import::TextImportError;
use shared::lint::editable::EditableFile;

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

/// The undo history a previous visit saved ([`crate::state::history::History::saved_text`]).
#[derive(serde::Deserialize)]
pub struct SavedHistory {
    /// The designs before the saved one, oldest first.
    pub past: Vec<Spec>,
    /// The designs undone, the nearest last.
    pub future: Vec<Spec>,
}

fn read_history_text(text: &str) -> Option<SavedHistory> {
    crate::codec::json::from_str(text).ok()
}

/// Reads a saved undo history with the reading code, loading it first when needed; `None`
/// when the text does not read (a history from an older page is left behind, not guessed).
pub async fn history_later(text: String) -> Option<SavedHistory> {
    split::read_history(&text).await
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
        Reading::Saved => crate::codec::json::from_str::<Spec>(text)
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

/// The answer of a split function whose file is loaded, which completes at its first
/// poll (its loader is already initialised, so nothing is awaited); `None` when the file
/// is not loaded, or failed to.
#[cfg(page_split)]
pub fn ready_now<T>(
    future: impl std::future::Future<Output = Result<T, leptos::wasm_split::SplitLoaderError>>,
) -> Option<T> {
    use std::task::{Context, Poll, Waker};
    let future = std::pin::pin!(future);
    match future.poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(Ok(value)) => Some(value),
        _ => None,
    }
}

#[cfg(page_split)]
mod split {
    use leptos::wasm_split::{SplitLoaderError, wasm_split};

    use super::ready_now;

    pub const IS_SPLIT: bool = true;

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
        ready_now(writer(spec))
    }

    // In the reading code's file too: a saved history is read when a saved design is.
    #[wasm_split(reader, wasm_split_path = ::leptos::wasm_split, preload(preload_history), fallible)]
    fn history(text: &str) -> Result<Option<super::SavedHistory>, SplitLoaderError> {
        Ok(super::read_history_text(text))
    }

    /// Reads a saved history, loading the reading code's file when needed.
    pub async fn read_history(text: &str) -> Option<super::SavedHistory> {
        history(text).await.ok().flatten()
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
        ready_now(reader(reading, text, current))
    }
}

#[cfg(not(page_split))]
mod split {
    pub const IS_SPLIT: bool = false;

    pub async fn read_history(text: &str) -> Option<super::SavedHistory> {
        super::read_history_text(text)
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
}
