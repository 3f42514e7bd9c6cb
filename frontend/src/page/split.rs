//! The steps past Start as split points: a first visit draws the Start step, the findings
//! and the preview; the other seven steps are most of the page's view code. In the page's
//! build (`--cfg page_split`) each step's code is its own wasm file, fetched when the
//! step is first opened; elsewhere they are ordinary functions, loaded from the start.
//!
//! As in `codec::reading`, the split points' generated code declares the chunk loader as
//! an `unsafe extern` import.
#![allow(unsafe_code)]

use std::future::Future;
use std::pin::Pin;

use crate::state::loading::LoadedSteps;
use crate::state::step::Step;

/// The page's record of loaded steps, with this build's way of loading them.
pub fn loaded_steps() -> LoadedSteps {
    fn load_step(step: Step) -> Pin<Box<dyn Future<Output = bool>>> {
        Box::pin(split::load(step))
    }
    LoadedSteps::new(split::IS_SPLIT, load_step)
}

/// The view of a loaded step; `None` while its code is still on its way.
pub fn view(step: Step) -> Option<leptos::prelude::AnyView> {
    split::view(step)
}

/// Declares one split point per step: `$view` draws the step, `$load` fetches its file.
macro_rules! split_steps {
    ($($step:ident => $view:ident, $load:ident, $component:path;)*) => {
        #[cfg(page_split)]
        mod split {
            use leptos::prelude::*;
            use leptos::wasm_split::{SplitLoaderError, wasm_split};

            use crate::codec::reading::ready_now;
            use crate::state::step::Step;

            pub const IS_SPLIT: bool = true;

            $(
                #[wasm_split($view, wasm_split_path = ::leptos::wasm_split, preload($load), fallible)]
                fn $view() -> Result<AnyView, SplitLoaderError> {
                    Ok(view! { <$component /> }.into_any())
                }
            )*

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
                    $(Step::$step => ready_now($view()),)*
                    Step::Start => Some(view! { <crate::steps::start::StartStep /> }.into_any()),
                }
            }
        }

        #[cfg(not(page_split))]
        mod split {
            use leptos::prelude::*;

            use crate::state::step::Step;

            pub const IS_SPLIT: bool = false;

            pub async fn load(_step: Step) -> bool {
                true
            }

            pub fn view(step: Step) -> Option<AnyView> {
                Some(match step {
                    $(Step::$step => view! { <$component /> }.into_any(),)*
                    Step::Start => view! { <crate::steps::start::StartStep /> }.into_any(),
                })
            }
        }
    };
}

split_steps! {
    Cluster => cluster_step_view, load_cluster_step, crate::steps::cluster::ClusterStep;
    Network => network_step_view, load_network_step, crate::steps::network::NetworkStep;
    NodeGroups => node_groups_step_view, load_node_groups_step, crate::steps::node_groups::NodeGroupsStep;
    Capacity => capacity_step_view, load_capacity_step, crate::steps::capacity::CapacityStep;
    Karpenter => karpenter_step_view, load_karpenter_step, crate::steps::karpenter::KarpenterStep;
    Addons => addons_step_view, load_addons_step, crate::steps::addons::AddonsStep;
    Review => review_step_view, load_review_step, crate::steps::review::ReviewStep;
}
