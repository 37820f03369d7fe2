//! Synthetic distractor tools for the search evaluation's large catalogs.
//!
//! Real catalogs stop at 1,111 tools (the dev and held-out servers), so
//! the 3,000- and 10,000-tool runs need more. Copies of the real tools
//! under invented server names tie with the relevant tool word for word,
//! which measures tie-breaking rather than search. Here each distractor
//! is a real tool moved into another domain and reworded: the server
//! becomes an invented product of that domain, its most used nouns become
//! the domain's nouns, its brand names become the product's name and its
//! leading verbs become synonyms:
//!
//! `mcp__github__create_issue`, "Create a new issue in a GitHub
//! repository" → `mcp__ledgerly__add_invoice`, "Add a new invoice in a
//! Ledgerly account".
//!
//! One synthetic server rewords one real server in one domain, so servers
//! keep realistic sizes and a consistent vocabulary. Every choice comes
//! from a hash of what is being chosen (splitmix64 over FNV-1a) and every
//! collection is ordered, so the same input gives the same tools on every
//! run and platform. This file depends on nothing but `std`: it is
//! included by path from the evals and from the benches.

use std::collections::{BTreeMap, BTreeSet};

/// One tool made up from a real one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Distractor {
    /// `mcp__<invented server>__<tool>`.
    pub name: String,
    /// The source's description, moved into the domain.
    pub description: String,
    /// Which of the real tools it was made from (an index into the input).
    pub source: usize,
}

/// The invented domains, one line each: product-name stems, then nouns
/// for places (what a repository or project becomes), things (issues,
/// pages, files) and people (users, owners); ` / ` between the parts,
/// spaces between the words. Nouns are
/// single words with regular plurals, so they fit both prose and
/// `snake_case` names.
const DOMAINS: &[&str] = &[
    "ledger tally fiscal / account ledger book / invoice bill receipt expense payment voucher statement budget / vendor accountant",
    "freight cargo haul / warehouse depot terminal / shipment parcel pallet manifest route delivery consignment waybill / courier carrier",
    "clinic medi care / clinic ward practice / appointment prescription chart referral visit claim diagnosis vaccine / patient physician",
    "class tutor campus / course school classroom / lesson assignment quiz grade syllabus lecture transcript module / student teacher",
    "estate realty dwell / property building portfolio / listing lease showing offer inspection deed apartment appraisal / tenant landlord",
    "hire talent recruit / agency department office / application interview resume requisition posting scorecard referral offer / candidate recruiter",
    "menu dine bistro / restaurant kitchen venue / reservation order dish recipe menu ticket tab shift / guest chef",
    "fit gym pulse / gym studio club / workout session routine exercise goal class membership plan / trainer athlete",
    "trip voyage journey / agency destination resort / booking flight ticket voucher excursion visa itinerary transfer / traveler agent",
    "lex brief counsel / firm court docket / case contract filing clause motion exhibit matter affidavit / client attorney",
    "insur policy cover / agency portfolio region / policy claim premium quote endorsement rider renewal adjustment / policyholder adjuster",
    "farm harvest crop / farm field greenhouse / crop harvest seed plot yield irrigation tractor herd / farmer agronomist",
    "tune chord beat / label studio catalog / track album playlist song royalty session release demo / artist producer",
    "reel scene frame / studio production archive / scene shot script clip reel cut storyboard screening / actor director",
    "shelf folio book / library collection archive / book loan hold catalog volume periodical manuscript citation / patron librarian",
    "venue gather fest / venue hall festival / ticket booking session badge agenda stage booth program / attendee organizer",
    "staff people crew / department office division / timesheet payslip leave appraisal benefit contract shift onboarding / employee manager",
    "shop store cart / store aisle counter / product order cart coupon return receipt sku promotion / shopper cashier",
    "forge mill plant / plant line factory / batch part assembly workorder defect inspection component blueprint / operator engineer",
    "volt grid watt / grid substation plant / meter reading outage tariff turbine feeder load contract / technician customer",
    "paw vet pet / clinic kennel shelter / pet vaccination checkup treatment microchip appointment litter adoption / owner veterinarian",
    "aero wing sky / airport hangar fleet / flight aircraft gate boarding manifest overhaul logbook slot / pilot passenger",
    "build brick crane / site building yard / permit blueprint inspection bid punchlist beam estimate submittal / contractor foreman",
    "promo brand reach / brand market channel / campaign ad audience lead funnel creative segment newsletter / marketer subscriber",
    "give charity fund / charity chapter foundation / donation grant pledge appeal gift fundraiser receipt program / donor volunteer",
    "stay inn lodge / hotel property resort / room reservation folio stay amenity suite rate checkin / guest concierge",
    "league goal match / league club stadium / match fixture roster score season transfer lineup standing / player coach",
    "press ink quill / publisher journal imprint / manuscript chapter edition proof galley article byline submission / author editor",
    "quest pixel arcade / guild realm lobby / quest achievement loot match level leaderboard badge tournament / player moderator",
    "transit metro rail / line station depot / route timetable fare trip vehicle stop pass delay / rider driver",
    "bank vault coin / bank branch vault / loan deposit transfer card mortgage statement cheque overdraft / borrower teller",
    "pill dose pharma / pharmacy dispensary formulary / prescription refill dose medication compound interaction recall formula / pharmacist patient",
    "lab assay helix / lab bench facility / sample assay experiment protocol reagent specimen plate result / researcher technician",
    "molar smile dent / practice clinic office / appointment xray cleaning filling crown chart implant invoice / patient dentist",
    "park lot spot / garage lot zone / permit spot ticket session citation meter pass vehicle / driver attendant",
    "vow bliss ring / venue chapel garden / invitation seat gift toast bouquet rehearsal menu cake / guest planner",
    "motor garage gear / garage dealership workshop / vehicle repair inspection warranty part estimate lease recall / mechanic owner",
    "stitch loom vogue / boutique collection atelier / garment pattern fabric sample lookbook fitting swatch style / designer tailor",
    "cast mic wave / show network studio / episode transcript segment clip feed adspot season rating / host listener",
    "lens shutter snap / gallery studio album / photo shoot print proof negative frame preset retouch / photographer client",
    "bloom leaf sprout / garden nursery plot / plant bed planting order seedling hedge lawn quote / gardener customer",
    "guard patrol sentinel / site post zone / patrol shift report checkpoint badge camera keycard alarm / guard visitor",
    "feast platter cater / kitchen venue pantry / order menu platter tasting delivery quote allergen portion / caterer client",
    "muse relic curio / museum gallery wing / exhibit artifact loan tour acquisition label catalog restoration / curator visitor",
    "tele signal dial / network exchange region / line plan number call sim voicemail porting bill / subscriber operator",
    "tot nest cub / daycare room center / enrollment attendance incident meal nap pickup invoice activity / parent caregiver",
    "brew hops malt / brewery taproom cellar / batch keg recipe tank tasting release order barrel / brewer distributor",
    "sparkle mop tidy / route region office / visit checklist booking supply quote invoice shift inspection / cleaner client",
    "star orbit comet / observatory array dome / observation target exposure catalog proposal night frame calibration / astronomer observer",
    "harbor dock tide / harbor port marina / vessel berth voyage crate manifest mooring charter cargo / captain sailor",
    "civic ballot poll / district precinct council / ballot petition motion permit ordinance hearing vote survey / resident clerk",
];

/// Endings of product names: (server-name form, display form).
const SUFFIXES: &[(&str, &str)] = &[
    ("ly", "ly"),
    ("hub", "Hub"),
    ("desk", "Desk"),
    ("flow", "Flow"),
    ("base", "Base"),
    ("wise", "wise"),
    ("io", "io"),
    ("stack", "Stack"),
    ("pilot", "Pilot"),
    ("works", "Works"),
    ("cloud", "Cloud"),
    ("sync", "Sync"),
];

/// The real catalogs' nouns a domain's nouns stand in for, by role (the
/// same roles as [`DOMAINS`]); `_` joins a two-word noun.
const SOURCE_NOUNS: [&str; 3] = [
    "repository repo project workspace organization org space account cluster namespace database \
     collection index bucket channel board team group folder directory drive site environment \
     zone instance region tenant keyspace schema",
    "issue pull_request merge_request work_item page file document record table key ticket task \
     message dashboard alert row item entry note post thread conversation sprint epic snapshot \
     image paper secret variable vector column branch commit tag release gist panel monitor \
     incident product invoice subscription payment price coupon pod node service worker \
     deployment container workflow job pipeline build migration trace span event log error \
     metric comment reply review annotation label reaction attachment link field notification \
     dataset model resource datasource rule cookie tab screenshot version artifact",
    "user member assignee owner reviewer collaborator contact customer author participant person",
];

/// Product and vendor names in the real descriptions: each becomes the
/// invented product's name, so no distractor names a real product.
const BRANDS: &str = "github gitlab git jira confluence atlassian sentry supabase playwright slack \
     postgres postgresql sqlite brave puppeteer gdrive google redis everart aws qdrant chroma \
     chromadb elasticsearch tavily browserbase whatsapp clickhouse arxiv markdownify notion \
     stripe grafana mongodb atlas kubernetes terraform azure devops firecrawl exa neon heroku \
     cloudflare prometheus loki tekton kiali istio kubevirt pyroscope cloudwatch graphite \
     victorialogs copilot athena";

/// Verbs and their rewordings, `verb:synonym,synonym`. A verb is reworded
/// where it acts as one: in a tool's name, at the start of a sentence and
/// after "to"; elsewhere ("workflow runs") the word stays.
const VERBS: &str = "create:add,make,register|list:show,enumerate,browse|get:fetch,read,retrieve|\
     fetch:load,retrieve,obtain|retrieve:fetch,load,obtain|delete:remove,erase,discard|\
     remove:delete,drop,detach|update:edit,modify,revise|edit:modify,revise,change|\
     search:find,query,explore|find:locate,discover,search|add:attach,insert,append|\
     set:assign,configure,define|run:execute,launch,invoke|execute:run,invoke,perform|\
     read:view,load,inspect|write:save,store,record|manage:handle,administer,maintain|\
     start:begin,launch,initiate|stop:halt,end,pause|move:transfer,relocate,shift|\
     close:shut,finish,complete|check:verify,inspect,examine|describe:explain,summarize,detail|\
     generate:produce,compose,build|download:export,save,pull|upload:import,send,push|\
     merge:combine,join,fold|query:interrogate,probe,ask|analyze:examine,assess,study|\
     send:post,deliver,dispatch|post:send,publish,submit|submit:send,file,lodge|\
     assign:allocate,delegate,give|trigger:fire,launch,kick|rename:retitle,relabel|\
     fork:clone,copy,duplicate|navigate:go,visit,browse|click:press,tap,select|\
     take:capture,grab|install:deploy,provision,enable|convert:transform,translate,turn|\
     scrape:harvest,extract,collect|crawl:traverse,walk,sweep|extract:pull,collect,gather|\
     apply:enact,perform,implement|deploy:ship,release,publish|validate:verify,confirm,audit|\
     verify:confirm,validate,check|insert:put,place,add|drop:discard,erase,remove|\
     clear:empty,reset,wipe|reset:restore,clear|count:tally,measure|show:display,present|\
     view:display,open|open:launch,access|subscribe:follow,watch|resolve:settle,fix";

/// The server names a distractor may take, in the order they are handed
/// out: every stem of every domain with every suffix. None may equal a
/// real server's name; the generator also skips any that does.
pub fn candidate_servers() -> Vec<String> {
    (0..DOMAINS.len())
        .flat_map(|d| (0..stems(d).len() * SUFFIXES.len()).map(move |k| product(d, k).0))
        .collect()
}

/// `n` distractors made from `real` (`(mcp__server__tool, description)`
/// pairs, every real tool), whole servers in turn: round after round,
/// each real server reworded into a domain it has not been in yet, so
/// each round's worth of tools holds every real server once.
///
/// Guarantees (checked by `search_heldout`'s test): names are unique and
/// valid tool names; no server name is a real one; no description equals
/// a real tool's description.
pub fn distractors(real: &[(&str, &str)], n: usize) -> Vec<Distractor> {
    let mut servers: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, (name, _)) in real.iter().enumerate() {
        let (server, _) = split_name(name);
        match servers.iter_mut().find(|(s, _)| *s == server) {
            Some((_, tools)) => tools.push(i),
            None => servers.push((server, vec![i])),
        }
    }
    let real_texts: BTreeSet<&str> = real.iter().map(|(_, d)| *d).collect();
    let mut taken: BTreeSet<String> = servers.iter().map(|(s, _)| s.to_string()).collect();
    let mut next_product = vec![0; DOMAINS.len()];
    let words = Words::new();
    let mut out = Vec::with_capacity(n);
    for round in 0..DOMAINS.len() {
        let mut order: Vec<usize> = (0..servers.len()).collect();
        order.sort_by_key(|&i| (hash(&[&round.to_string(), servers[i].0]), i));
        for i in order {
            if out.len() >= n {
                return out;
            }
            // One domain further each round: a real server meets a new
            // domain every round. The step of 7, prime to the domain
            // count, spreads one round's servers over different domains.
            let domain = (i * 7 + round) % DOMAINS.len();
            let (server, display) = loop {
                let candidate = product(domain, next_product[domain]);
                next_product[domain] += 1;
                if taken.insert(candidate.0.clone()) {
                    break candidate;
                }
            };
            let room = n - out.len();
            let (source_server, tools) = &servers[i];
            let moved = Move::new(
                &words,
                domain,
                source_server,
                &server,
                &display,
                real,
                tools,
            );
            out.extend(moved.tools(real, tools, &real_texts).into_iter().take(room));
        }
    }
    assert!(out.len() >= n, "only {} distractors can be made", out.len());
    out
}

fn split_name(name: &str) -> (&str, &str) {
    name.strip_prefix("mcp__")
        .and_then(|rest| rest.split_once("__"))
        .unwrap_or(("", name))
}

/// Part `part` of `domain` (0 stems, 1 places, 2 things, 3 people).
fn domain_words(domain: usize, part: usize) -> Vec<&'static str> {
    let parts: Vec<&str> = DOMAINS[domain].split(" / ").collect();
    parts[part].split_whitespace().collect()
}

fn stems(domain: usize) -> Vec<&'static str> {
    domain_words(domain, 0)
}

/// The `k`th product of `domain`: (server name, display name).
fn product(domain: usize, k: usize) -> (String, String) {
    let stems = stems(domain);
    let stem = stems[k % stems.len()];
    let (suffix, shown) = SUFFIXES[(k / stems.len() + domain) % SUFFIXES.len()];
    (
        format!("{stem}{suffix}"),
        format!("{}{shown}", capitalized(stem)),
    )
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_ascii_uppercase().to_string() + chars.as_str()
    })
}

fn plural(noun: &str) -> String {
    if noun == "person" {
        "people".to_owned()
    } else if let Some(stem) = noun
        .strip_suffix('y')
        .filter(|s| !s.ends_with(['a', 'e', 'o', 'u']))
    {
        format!("{stem}ies")
    } else if noun.ends_with(['s', 'x', 'z']) || noun.ends_with("ch") || noun.ends_with("sh") {
        format!("{noun}es")
    } else {
        format!("{noun}s")
    }
}

/// The third person of a verb: `fetch` → `fetches`, `go` → `goes`.
fn third_person(verb: &str) -> String {
    if verb.ends_with('o') {
        format!("{verb}es")
    } else {
        plural(verb)
    }
}

/// FNV-1a over `parts` (each followed by a separator byte), then one
/// splitmix64 step to spread it.
fn hash(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain([0xff]) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h = h.wrapping_add(0x9e37_79b9_7f4a_7c15);
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// The word tables, looked up by lowercase surface form.
struct Words {
    /// Surface (`issues`, `pull requests`) → (source noun, role, plural).
    nouns: BTreeMap<String, (&'static str, usize, bool)>,
    /// Surface (`creates`) → (base verb, synonyms in the same form).
    verbs: BTreeMap<String, (&'static str, Vec<String>)>,
    brands: BTreeSet<&'static str>,
}

impl Words {
    fn new() -> Self {
        let mut nouns = BTreeMap::new();
        for (role, list) in SOURCE_NOUNS.iter().enumerate() {
            for noun in list.split_whitespace() {
                let spaced = noun.replace('_', " ");
                nouns.insert(plural(&spaced), (noun, role, true));
                nouns.insert(spaced, (noun, role, false));
            }
        }
        nouns.insert("indices".to_owned(), ("index", 0, true));
        let mut verbs = BTreeMap::new();
        for entry in VERBS.split('|') {
            let (verb, synonyms) = entry.split_once(':').expect("verb:synonyms");
            let synonyms: Vec<&str> = synonyms.split(',').collect();
            let thirds = synonyms.iter().map(|s| third_person(s)).collect();
            verbs.insert(third_person(verb), (verb, thirds));
            verbs.insert(
                verb.to_owned(),
                (verb, synonyms.iter().map(|s| s.to_string()).collect()),
            );
        }
        let brands = BRANDS.split_whitespace().collect();
        Words {
            nouns,
            verbs,
            brands,
        }
    }

    /// The source noun at `toks[i]` and how many tokens it spans: three
    /// for a two-word noun (`pull request`, `pull_request`), else one.
    fn noun_at(
        &self,
        toks: &[(&str, bool)],
        i: usize,
    ) -> (Option<(&'static str, usize, bool)>, usize) {
        let first = toks[i].0.to_ascii_lowercase();
        if let (Some((sep, false)), Some((second, true))) = (toks.get(i + 1), toks.get(i + 2))
            && matches!(*sep, " " | "_" | "-")
            && let Some(&found) = self
                .nouns
                .get(&format!("{first} {}", second.to_ascii_lowercase()))
        {
            return (Some(found), 3);
        }
        (self.nouns.get(&first).copied(), 1)
    }
}

/// Text split into words (ASCII letter runs, `camelCase` split unless the
/// run is one of `whole`, as `GitHub` is) and the runs between them.
fn tokens<'a>(text: &'a str, whole: &BTreeSet<&str>) -> Vec<(&'a str, bool)> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    while start < bytes.len() {
        let word = bytes[start].is_ascii_alphabetic();
        let mut end = start + 1;
        while end < bytes.len() && bytes[end].is_ascii_alphabetic() == word {
            end += 1;
        }
        let run = &text[start..end];
        if word && whole.contains(run.to_ascii_lowercase().as_str()) {
            out.push((run, true));
        } else if word {
            split_camel(run, &mut out);
        } else {
            // Non-letters may be multi-byte: `end` stops only on ASCII
            // letters, which are char boundaries.
            out.push((run, false));
        }
        start = end;
    }
    out
}

fn split_camel<'a>(run: &'a str, out: &mut Vec<(&'a str, bool)>) {
    let b = run.as_bytes();
    let mut from = 0;
    for i in 1..b.len() {
        if b[i - 1].is_ascii_lowercase() && b[i].is_ascii_uppercase() {
            out.push((&run[from..i], true));
            from = i;
        }
    }
    out.push((&run[from..], true));
}

/// `replacement` in the case of `source`: lower, Capitalized or UPPER.
fn cased(source: &str, replacement: &str) -> String {
    if source.chars().all(|c| c.is_ascii_lowercase()) {
        replacement.to_ascii_lowercase()
    } else if source.len() > 1 && source.chars().all(|c| c.is_ascii_uppercase()) {
        replacement.to_ascii_uppercase()
    } else {
        capitalized(replacement)
    }
}

/// One real server moved into one domain.
struct Move<'w> {
    words: &'w Words,
    /// Seeds every choice for this server's tools.
    seed: String,
    server: String,
    display: String,
    /// Source noun → domain noun, for the nouns this server uses most.
    nouns: BTreeMap<&'static str, &'static str>,
}

impl<'w> Move<'w> {
    fn new(
        words: &'w Words,
        domain: usize,
        source_server: &str,
        server: &str,
        display: &str,
        real: &[(&str, &str)],
        tools: &[usize],
    ) -> Self {
        // The server's nouns by use, most used first: they get the
        // domain's nouns one to one, so "issue" and "pull request" never
        // both become "invoice"; rarer ones stay as they are.
        let mut uses: BTreeMap<&'static str, (usize, usize)> = BTreeMap::new();
        for &t in tools {
            let (name, description) = real[t];
            for text in [split_name(name).1, description] {
                let toks = tokens(text, &words.brands);
                let mut i = 0;
                while i < toks.len() {
                    let (found, width) = words.noun_at(&toks, i);
                    if let Some((noun, role, _)) = found {
                        uses.entry(noun).or_insert((0, role)).0 += 1;
                    }
                    i += width;
                }
            }
        }
        let mut ranked: Vec<(&'static str, usize, usize)> =
            uses.into_iter().map(|(n, (c, r))| (n, c, r)).collect();
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let mut nouns = BTreeMap::new();
        for role in 0..3 {
            let vocab = domain_words(domain, role + 1);
            let turn = hash(&[server, source_server]) as usize;
            for (j, (noun, _, _)) in ranked
                .iter()
                .filter(|r| r.2 == role)
                .take(vocab.len())
                .enumerate()
            {
                nouns.insert(*noun, vocab[(turn + j) % vocab.len()]);
            }
        }
        Move {
            words,
            seed: format!("{server}/{source_server}"),
            server: server.to_owned(),
            display: display.to_owned(),
            nouns,
        }
    }

    /// The server's tools, reworded, with names unique within it.
    fn tools(
        &self,
        real: &[(&str, &str)],
        tools: &[usize],
        real_texts: &BTreeSet<&str>,
    ) -> Vec<Distractor> {
        let mut used = BTreeSet::new();
        let mut out = Vec::new();
        for &t in tools {
            let (name, description) = real[t];
            let own = split_name(name).1;
            // The server's own synonyms first (one word per verb across
            // the server, so `use workers_get_worker` in one description
            // names the tool it means); when two tools would share a
            // name, the tool's own draws, then a number.
            let mut attempt = 0;
            let (tool, text) = loop {
                let seed = match attempt {
                    0 => self.seed.clone(),
                    _ => format!("{}/{own}/{attempt}", self.seed),
                };
                let mut tool = self.fit(&self.rewrite(own, true, &seed));
                if attempt >= 4 {
                    tool = self.fit(&format!("{tool}_{}", attempt - 2));
                }
                if used.insert(tool.clone()) {
                    break (tool, self.rewrite(description, false, &seed));
                }
                attempt += 1;
            };
            // A text the rewording left equal to a real one says which
            // product it is, so no distractor copies a real description.
            let text = if text == description || real_texts.contains(text.as_str()) {
                format!("{}: {text}", self.display)
            } else {
                text
            };
            out.push(Distractor {
                name: format!("mcp__{}__{tool}", self.server),
                description: text,
                source: t,
            });
        }
        out
    }

    /// `own` shortened, at a `_` where one allows, so the full name keeps
    /// within the 64 characters providers accept.
    fn fit(&self, own: &str) -> String {
        let room = 64 - "mcp____".len() - self.server.len();
        let mut own = own.to_owned();
        while own.len() > room {
            match own.rfind('_').filter(|&i| i > 0) {
                Some(i) => own.truncate(i),
                None => own.truncate(room),
            }
        }
        own
    }

    /// `text` moved into the domain. In a name every word may be a verb;
    /// in prose only a sentence's first word, a word after "to" and a
    /// word of a `snake_case` name (another tool's).
    fn rewrite(&self, text: &str, name: bool, seed: &str) -> String {
        let toks = tokens(text, &self.words.brands);
        // (text, whether a noun or product was put in): the articles
        // before what was put in are fixed afterwards.
        let mut out: Vec<(String, bool)> = Vec::with_capacity(toks.len());
        let (mut sentence_start, mut after_to) = (true, false);
        let mut i = 0;
        while i < toks.len() {
            let (tok, word) = toks[i];
            if !word {
                sentence_start |= tok.contains(['.', '!', '?', ':', '\n']);
                out.push((tok.to_owned(), false));
                i += 1;
                continue;
            }
            let in_identifier =
                (i > 0 && toks[i - 1].0 == "_") || toks.get(i + 1).is_some_and(|(t, _)| *t == "_");
            // A lower-case word opening a line is a parameter (`query:`),
            // not an imperative.
            let opens = sentence_start && tok.starts_with(|c: char| c.is_ascii_uppercase());
            let verb_here = name || opens || after_to || in_identifier;
            let (put, width) = self.word(&toks, i, name, verb_here, seed);
            let repeated =
                out.len() >= 2 && out[out.len() - 1].0 == " " && out[out.len() - 2].0 == put.0;
            if put.1 && repeated && put.0 == self.brand(tok, name) {
                // "MongoDB Atlas" names the product once, not twice.
                out.pop();
            } else {
                out.push(put);
            }
            i += width;
            after_to = tok.eq_ignore_ascii_case("to");
            sentence_start = false;
        }
        fix_articles(&mut out);
        out.into_iter().map(|(t, _)| t).collect()
    }

    /// The word at `toks[i]` moved into the domain: (text, whether a
    /// noun or product was put in, how many tokens it replaces).
    fn word(
        &self,
        toks: &[(&str, bool)],
        i: usize,
        name: bool,
        verb_here: bool,
        seed: &str,
    ) -> ((String, bool), usize) {
        let tok = toks[i].0;
        let lower = tok.to_ascii_lowercase();
        if self.words.brands.contains(lower.as_str()) {
            return ((self.brand(tok, name), true), 1);
        }
        // Upper-case words are code (`ALTER TABLE`) or emphasis: left
        // alone unless they name a product.
        if tok.len() > 1 && tok.chars().all(|c| c.is_ascii_uppercase()) {
            return ((tok.to_owned(), false), 1);
        }
        if let Some((verb, synonyms)) = self.words.verbs.get(&lower).filter(|_| verb_here) {
            let pick = hash(&[seed, verb]) as usize % synonyms.len();
            return ((cased(tok, &synonyms[pick]), false), 1);
        }
        match self.words.noun_at(toks, i) {
            (Some((noun, _, many)), width) if self.nouns.contains_key(noun) => {
                let new = self.nouns[noun];
                let new = if many { plural(new) } else { new.to_owned() };
                ((cased(tok, &new), true), width)
            }
            _ => ((tok.to_owned(), false), 1),
        }
    }

    fn brand(&self, source: &str, name: bool) -> String {
        if name || source.chars().all(|c| c.is_ascii_lowercase()) {
            self.server.clone()
        } else if source.len() > 1 && source.chars().all(|c| c.is_ascii_uppercase()) {
            self.display.to_ascii_uppercase()
        } else {
            self.display.clone()
        }
    }
}

/// "a" before a put-in word that starts with a vowel becomes "an", and
/// back ("a invoice" → "an invoice", "an issue" → "a ticket").
fn fix_articles(out: &mut [(String, bool)]) {
    for i in 0..out.len().saturating_sub(2) {
        if out[i + 1].0 != " " || !out[i + 2].1 {
            continue;
        }
        let vowel = out[i + 2]
            .0
            .starts_with(['a', 'e', 'i', 'o', 'A', 'E', 'I', 'O']);
        let article = match out[i].0.as_str() {
            "a" | "an" => {
                if vowel {
                    "an"
                } else {
                    "a"
                }
            }
            "A" | "An" => {
                if vowel {
                    "An"
                } else {
                    "A"
                }
            }
            _ => continue,
        };
        out[i].0 = article.to_owned();
    }
}
