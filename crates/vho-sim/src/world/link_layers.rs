//! Link layers in the world (`link::layer`): each direction's built from its spec with a
//! stream of its own, `link:<name>:<side>:rlc` or `:dcf`, so that adding one does not shift
//! any other element's draws. Once attached the world drives a layered direction as any
//! other: its next event is `LinkDir::next_arrival` (the layer's `poll_timeout` when nothing
//! waits in the pipe), its discards are booked as losses on the air are (`World::book`).

use super::SimError;
use crate::link::layer::LinkLayer;
use crate::link::LinkDir;
use crate::rng::Rng;
use crate::spec::{DirSpec, Spec};

/// Puts direction `side` (`ab`, `ba`) of link `name` behind the link layer its spec names.
pub(super) fn attach(
    dir: &mut LinkDir,
    spec: &Spec,
    name: &str,
    side: &str,
    ds: &DirSpec,
) -> Result<(), SimError> {
    let stream = LinkLayer::stream_suffix(&ds.link_layer);
    let rng = Rng::stream(spec.seed, &format!("link:{name}:{side}:{stream}"));
    let layer = LinkLayer::new(&ds.link_layer, rng).map_err(|error| SimError::LinkLayer {
        link: name.to_string(),
        error,
    })?;
    dir.set_link_layer(layer);
    Ok(())
}

/// Whether any direction has a link layer.
pub(super) fn any(dirs: &[LinkDir]) -> bool {
    dirs.iter()
        .any(|d| !matches!(d.link_layer(), LinkLayer::Plain))
}
