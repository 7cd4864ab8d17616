//! Listing and reading a server's skills (SEP-2640) as split points: the page's `SkillRunner`
//! (engine::agent::skills) runs them from the explore chunk (a server's resources, which skills
//! are), fetched with a card's tabs or when phase 1 first finds a server that declares skills. A
//! chunk of their own was measured: its shared files cost the agent chunk 8 KB gzip more
//! (docs/size.md).

use engine::agent::{Offering, ServerSkills, SkillOffer, SkillRunner, SkillsInPlace};
use futures::future::LocalBoxFuture;
use serde_json::Value;
#[cfg(loopscope_split)]
use wasm_split_helpers::wasm_split;

use super::{ChunkMissing, missing_why};
use crate::PagePlatform;

split_point! {
    /// Phase 1: the servers' skills, and the functions Claude is offered.
    explore: fn skills_offer(servers: Vec<Offering<PagePlatform>>) -> Result<LocalBoxFuture<'static, SkillOffer>, ChunkMissing> {
        Ok(SkillsInPlace.offer(servers))
    }
}

split_point! {
    /// Phase 3: `load_skill` or `read_skill_file`, read and verified.
    explore: fn skills_call(function: String, input: Value, skills: Vec<ServerSkills>, servers: Vec<Offering<PagePlatform>>) -> Result<LocalBoxFuture<'static, Result<String, String>>, ChunkMissing> {
        Ok(SkillsInPlace.call(function, input, skills, servers))
    }
}

/// The page's skills runner: the code comes from the explore chunk. A chunk that does not arrive
/// leaves the skills out of the turn (phase 1, the trace says why) or tells Claude the file was
/// not read (phase 3); the turn goes on.
pub struct SkillsFromChunk;

fn missing() -> String {
    format!("the page's code for skills did not arrive: {}", missing_why())
}

impl SkillRunner<PagePlatform> for SkillsFromChunk {
    fn offer(&self, servers: Vec<Offering<PagePlatform>>) -> LocalBoxFuture<'static, SkillOffer> {
        Box::pin(async move {
            match skills_offer(servers).await {
                Ok(offer) => offer.await,
                Err(ChunkMissing) => SkillOffer {
                    left_out: vec![format!("Skills are left out of this turn: {}", missing())],
                    ..SkillOffer::default()
                },
            }
        })
    }

    fn call(
        &self,
        function: String,
        input: Value,
        skills: Vec<ServerSkills>,
        servers: Vec<Offering<PagePlatform>>,
    ) -> LocalBoxFuture<'static, Result<String, String>> {
        Box::pin(async move { skills_call(function, input, skills, servers).await.map_err(|_| missing())?.await })
    }
}
