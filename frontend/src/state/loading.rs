//! Which steps' code is on the page: the first visit holds only Start's, and each other
//! step's arrives when it is first opened (see `page::split`).

use std::future::Future;
use std::pin::Pin;

use leptos::prelude::*;

use crate::state::step::Step;

/// Which steps' code is loaded, and which failed to load.
#[derive(Clone, Copy)]
pub struct LoadedSteps {
    loaded: RwSignal<[bool; Step::ALL.len()]>,
    failed: RwSignal<[bool; Step::ALL.len()]>,
    load: LoadStep,
}

/// Work done by code a split point holds, handed back by it once its file is loaded.
#[cfg(page_split)]
pub type Later<T> = Pin<Box<dyn Future<Output = Result<T, String>>>>;

/// Fetches a step's code; false when it could not be loaded.
pub type LoadStep = fn(Step) -> Pin<Box<dyn Future<Output = bool>>>;

impl LoadedSteps {
    /// Every step loaded from the start (`split` false), or only Start, the others
    /// fetched by `load`.
    pub fn new(split: bool, load: LoadStep) -> Self {
        let loaded = Step::ALL.map(|step| !split || step == Step::Start);
        LoadedSteps {
            loaded: RwSignal::new(loaded),
            failed: RwSignal::new([false; Step::ALL.len()]),
            load,
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
            if (self.load)(step).await {
                if !self.loaded.with_untracked(|loaded| loaded[index]) {
                    self.loaded.update(|loaded| loaded[index] = true);
                }
                request_animation_frame(then);
            } else {
                self.failed.update(|failed| failed[index] = true);
            }
        });
    }
}
