"""Stage environment: what a check is run against, read from files, never run. Imports base/ only.

- releases.py: the cache API of every transformers release (data/releases.json);
- release_runs.py: that table's facts as runs of releases, each made when first looked up;
- releases_models.py: the names a tabled model module (`modeling_llama`) or the top level lost, from that table;
- release_version.py: `Version`, a release number as transformers' releases compare (`V`, NEWEST);
- api_changes.py: the tables of removed or changed cache API the rules report, and BEHAVIOUR_CHANGES;
- target.py: `Target`, what one release does with caches, answered from the release table;
- release_steps.py: the releases where those answers change (a range's steps, `--upgrade-to`);
- families.py: the class families the engine names (the Mamba family, pipeline classes by task);
- requirements.py: the transformers release(s) a project declares (lock files, pyproject, requirements);
- environments.py: which transformers an environment has installed, read from its files;
- target_plan.py: which release(s) a check is for, and why (the one resolver);
- confine.py: where the analysis may read (workspace, the file's folder, the Hugging Face cache);
- reads.py: the one bounded, confined way to read a file the analysed repository controls;
- deps.py: what a check consulted outside its own text (for the CLI's result cache);
- context.py: `Context`: the target version, workspace roots and hub cache of one analysis;
- workspace.py: the workspace's own modules, found and glanced at (the file an import names);
- checkpoints.py: a checkpoint's generation_config.json (local folder, hub cache, the shipped table).
"""
