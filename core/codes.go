package core

// Error codes: the stable machine codes of Error.Code, the API agents and front ends
// branch on. Each constant's comment says what it means; docs/codes.md lists every code
// with its meaning and exit code (TestCodesAreDocumented keeps the two in step).
const (
	// CodeAbandoned means: the land job's process died part way; its outcome is uncertain and it is never resumed.
	CodeAbandoned = "abandoned"
	// CodeAdvanceUnverified means: the target … was advanced, but reading it back did not show …
	CodeAdvanceUnverified = "advance_unverified"
	// CodeAlreadyHere means: the target is the worktree you are already in.
	CodeAlreadyHere = "already_here"
	// CodeAlreadyQueued means: land: the worktree already has a land queued or running.
	CodeAlreadyQueued = "already_queued"
	// CodeAmbiguousID means: the id prefix matches more than one removed worktree.
	CodeAmbiguousID = "ambiguous_id"
	// CodeAmbiguousRemoteBranch means: the branch exists on several remotes and not locally; name the remote.
	CodeAmbiguousRemoteBranch = "ambiguous_remote_branch"
	// CodeApprovalNeedsTerminal means: only a person at a terminal can approve project commands; stdin is not one.
	CodeApprovalNeedsTerminal = "approval_needs_terminal"
	// CodeApprovalsUnreadable means: the approved project commands file cannot be read or written (or others can write it).
	CodeApprovalsUnreadable = "approvals_unreadable"
	// CodeApprovalsUnsafe means: the approvals file, or a directory above it up to the user's config directory, is not owned by the user or is writable by group or others; it is not trusted.
	CodeApprovalsUnsafe = "approvals_unsafe"
	// CodeBadArgument means: a command-line argument or flag value is not one copse accepts.
	CodeBadArgument = "bad_argument"
	// CodeBadBackend means: the backend asked for is not auto, git, herdr or tmux.
	CodeBadBackend = "bad_backend"
	// CodeBadBaseConfig means: git config copse.base does not name a commit (or is not a plain ref).
	CodeBadBaseConfig = "bad_base_config"
	// CodeBadConfig means: a git config value copse reads (copse.*, core.sharedRepository) is not valid.
	CodeBadConfig = "bad_config"
	// CodeBadDir means: the directory to run in cannot be used.
	CodeBadDir = "bad_dir"
	// CodeBadDuration means: a duration value (idle, keepRemoved) cannot be parsed.
	CodeBadDuration = "bad_duration"
	// CodeDurationTooLong means: a duration (flag or git config) is longer than copse allows (100 years for ages and retentions, a day for timeouts); the message names the largest.
	CodeDurationTooLong = "duration_too_long"
	// CodeBadID means: id … is not a worktree id.
	CodeBadID = "bad_id"
	// CodeBadJob means: job … is not a land job id.
	CodeBadJob = "bad_job"
	// CodeBadPath means: a path value is not an absolute path.
	CodeBadPath = "bad_path"
	// CodeBadSession means: the session id contains characters a session id may not.
	CodeBadSession = "bad_session"
	// CodeBadSince means: --since … is not a sequence number.
	CodeBadSince = "bad_since"
	// CodeBadSort means: sort order … is not known.
	CodeBadSort = "bad_sort"
	// CodeBadStateToken means: expected_state_token is not a token copse handed out.
	CodeBadStateToken = "bad_state_token"
	// CodeBadWorkspaceID means: workspace_id … is not a Herdr workspace id.
	CodeBadWorkspaceID = "bad_workspace_id"
	// CodeBareRepository means: the target is the bare repository, which has no checkout.
	CodeBareRepository = "bare_repository"
	// CodeBaseMoved means: the base (or the remote branch) moved between the check and the run; nothing ran.
	CodeBaseMoved = "base_moved"
	// CodeBaseWithExistingBranch means: branch … already exists; a base applies only to a new branch.
	CodeBaseWithExistingBranch = "base_with_existing_branch"
	// CodeBaseWithRemoteBranch means: a base was given for a branch that comes from a remote.
	CodeBaseWithRemoteBranch = "base_with_remote_branch"
	// CodeBidiMark means: a value contains a bidirectional mark, which can disguise what is shown.
	CodeBidiMark = "bidi_mark"
	// CodeBranchCheckedOut means: the branch is already checked out (or being rebased or bisected) in a worktree.
	CodeBranchCheckedOut = "branch_checked_out"
	// CodeBranchCheckedOutTwice means: the branch is checked out in two worktrees, so it names neither; name the path.
	CodeBranchCheckedOutTwice = "branch_checked_out_twice"
	// CodeBranchExists means: the remote branch would become a local branch that already exists.
	CodeBranchExists = "branch_exists"
	// CodeBranchLookupFailed means: git could not tell whether the branch exists.
	CodeBranchLookupFailed = "branch_lookup_failed"
	// CodeBranchNotDeleted means: the worktree was removed but its branch could not be deleted.
	CodeBranchNotDeleted = "branch_not_deleted"
	// CodeBranchesFailed means: git could not list the branches or remotes.
	CodeBranchesFailed = "branches_failed"
	// CodeCancelled means: the user or caller cancelled (Ctrl-C, a signal, the prompt); the message says what state was left.
	CodeCancelled = "cancelled"
	// CodeCDFile means: the directory for the shell could not be written to COPSE_CD_FILE.
	CodeCDFile = "cd_file"
	// CodeCheckBranchFailed means: cannot check the branch name.
	CodeCheckBranchFailed = "check_branch_failed"
	// CodeClaimAfterCreateFailed means: the worktree was created but its claim could not be confirmed.
	CodeClaimAfterCreateFailed = "claim_after_create_failed"
	// CodeClaimed means: the worktree is claimed by another session.
	CodeClaimed = "claimed"
	// CodeClaimedByOther means: release or land: the claim belongs to another session.
	CodeClaimedByOther = "claimed_by_other"
	// CodeClaimedWorktree means: remove: the worktree is claimed by a session.
	CodeClaimedWorktree = "claimed_worktree"
	// CodeConfigFailed means: git config could not be read.
	CodeConfigFailed = "config_failed"
	// CodeContainsWorktree means: the worktree contains another worktree that a remove would delete too.
	CodeContainsWorktree = "contains_worktree"
	// CodeControlCharacter means: a value contains a control character.
	CodeControlCharacter = "control_character"
	// CodeCreateFailed means: git could not create the worktree.
	CodeCreateFailed = "create_failed"
	// CodeCreateNoDirectory means: create ran and git lists the worktree, but its directory does not exist.
	CodeCreateNoDirectory = "create_no_directory"
	// CodeCreateNotListed means: create reported success but git does not list the worktree.
	CodeCreateNotListed = "create_not_listed"
	// CodeCreateNotTakenBack means: create failed and taking back what it made did not restore the state before; the message lists what remains.
	CodeCreateNotTakenBack = "create_not_taken_back"
	// CodeCreateUncertain means: create failed but git lists the worktree anyway.
	CodeCreateUncertain = "create_uncertain"
	// CodeCreateUnverified means: create ran but the worktree list could not be read back.
	CodeCreateUnverified = "create_unverified"
	// CodeCreateWrongBranch means: create ran but git lists the worktree on another branch.
	CodeCreateWrongBranch = "create_wrong_branch"
	// CodeCreateWrongCommit means: create ran but git lists the worktree at another commit than the base.
	CodeCreateWrongCommit = "create_wrong_commit"
	// CodeCurrentWorkspace means: remove under Herdr: the worktree is open in the workspace copse runs in.
	CodeCurrentWorkspace = "current_workspace"
	// CodeCurrentWorktree means: remove: copse, its caller or its session is in that worktree.
	CodeCurrentWorktree = "current_worktree"
	// CodeDeclined means: the user declined the confirmation (MCP elicitation); nothing ran.
	CodeDeclined = "declined"
	// CodeDetachedUniqueCommits means: the detached HEAD has commits on no branch, tag or remote.
	CodeDetachedUniqueCommits = "detached_unique_commits"
	// CodeWorktreeOnlyCommits means: commits only the worktree's HEAD reflog or its per-worktree refs (refs/worktree/*, refs/bisect/*) hold, which git deletes with it.
	CodeWorktreeOnlyCommits = "worktree_only_commits"
	// CodeSubmoduleUnpushed means: a submodule whose git directory goes with the worktree holds commits on none of its remotes.
	CodeSubmoduleUnpushed = "submodule_unpushed"
	// CodeNotRecordable means: a forced path cannot record what it would delete (uncommitted changes inside a submodule or nested repository, or the commits of a submodule repository a gone worktree's admin directory keeps); nothing was removed.
	CodeNotRecordable = "not_recordable"
	// CodeDetachedWorktree means: land: the worktree is detached; land needs a branch.
	CodeDetachedWorktree = "detached_worktree"
	// CodeDirtyWorktree means: the worktree has uncommitted (or hidden) changes a remove would discard.
	CodeDirtyWorktree = "dirty_worktree"
	// CodeDotSegment means: a path has a . or .. segment.
	CodeDotSegment = "dot_segment"
	// CodeDropRemovedFailed means: cannot drop the expired record …
	CodeDropRemovedFailed = "drop_removed_failed"
	// CodeDuplicateKey means: a request names the same field twice.
	CodeDuplicateKey = "duplicate_key"
	// CodeEmptyValue means: a value is empty.
	CodeEmptyValue = "empty_value"
	// CodeExactlyOne means: the request names its target by none or several of path, branch, id and workspace_id.
	CodeExactlyOne = "exactly_one"
	// CodeFailed means: an error copse did not classify; the message is the underlying one.
	CodeFailed = "failed"
	// CodeGitNotFound means: git is not installed (or not on PATH).
	CodeGitNotFound = "git_not_found"
	// CodeHerdrBadReply means: Herdr answered with a reply copse cannot trust.
	CodeHerdrBadReply = "herdr_bad_reply"
	// CodeHerdrBusy means: Herdr is busy with another operation on this worktree.
	CodeHerdrBusy = "herdr_busy"
	// CodeHerdrCreateFailed means: herdr worktree create failed and git shows nothing changed.
	CodeHerdrCreateFailed = "herdr_create_failed"
	// CodeHerdrFailed means: herdr could not be run, or died.
	CodeHerdrFailed = "herdr_failed"
	// CodeHerdrListFailed means: herdr worktree list failed (Herdr's reply or its run).
	CodeHerdrListFailed = "herdr_list_failed"
	// CodeHerdrNotDetected means: --backend herdr was asked for, but …
	CodeHerdrNotDetected = "herdr_not_detected"
	// CodeHerdrNotLinked means: Herdr refused: the worktree is not a linked worktree of its workspace.
	CodeHerdrNotLinked = "herdr_not_linked"
	// CodeHerdrNotRunning means: no Herdr server is running.
	CodeHerdrNotRunning = "herdr_not_running"
	// CodeHerdrOpenFailed means: herdr worktree open failed.
	CodeHerdrOpenFailed = "herdr_open_failed"
	// CodeHerdrOutputLimit means: herdr printed more than the output cap; its reply is lost.
	CodeHerdrOutputLimit = "herdr_output_limit"
	// CodeHerdrProtocolMismatch means: the Herdr server speaks another protocol than its binary (upgraded while running).
	CodeHerdrProtocolMismatch = "herdr_protocol_mismatch"
	// CodeHerdrRemoveFailed means: herdr worktree remove failed and git shows nothing changed.
	CodeHerdrRemoveFailed = "herdr_remove_failed"
	// CodeHerdrReplyMismatch means: Herdr reported success about another checkout or branch than asked.
	CodeHerdrReplyMismatch = "herdr_reply_mismatch"
	// CodeHerdrTimeout means: a herdr command did not finish within the timeout and was stopped.
	CodeHerdrTimeout = "herdr_timeout"
	// CodeHerdrTooOld means: the herdr found is older than copse needs.
	CodeHerdrTooOld = "herdr_too_old"
	// CodeHerdrUnusable means: HERDR_ENV=1 but herdr cannot be used: …
	CodeHerdrUnusable = "herdr_unusable"
	// CodeHerdrUsageBug means: herdr rejected copse's arguments: a bug in copse, or a changed Herdr command line.
	CodeHerdrUsageBug = "herdr_usage_bug"
	// CodeInternal means: land: the job ended without a result (a bug in copse).
	CodeInternal = "internal"
	// CodeIntoIsBranch means: land: the target is the worktree's own branch.
	CodeIntoIsBranch = "into_is_branch"
	// CodeInvalidBranch means: the value is not a valid branch name (git check-ref-format).
	CodeInvalidBranch = "invalid_branch"
	// CodeInvalidID means: id … is not a restore id (at least 4 characters of 0-9a-f).
	CodeInvalidID = "invalid_id"
	// CodeInvalidJSON means: the request is not valid JSON (or not UTF-8).
	CodeInvalidJSON = "invalid_json"
	// CodeInvisibleCharacter means: a value contains an invisible separator.
	CodeInvisibleCharacter = "invisible_character"
	// CodeLandChangedContent means: land: the rebased branch would not bring the target the change the branch made; nothing was advanced and the branch was put back.
	CodeLandChangedContent = "land_changed_content"
	// CodeLandGitFailed means: land: a git command failed; the target is unchanged.
	CodeLandGitFailed = "land_git_failed"
	// CodeLandOwnerStopped means: land: the job at the head of the queue belongs to a stopped process (Ctrl-Z, SIGSTOP); the waiting land gave up after copse.lockTimeout and changed nothing.
	CodeLandOwnerStopped = "land_owner_stopped"
	// CodeLandQueueFailed means: cannot queue the land.
	CodeLandQueueFailed = "land_queue_failed"
	// CodeLandQueueUnreadable means: cannot read the land queue.
	CodeLandQueueUnreadable = "land_queue_unreadable"
	// CodeDropLandFailed means: cannot read the land records or drop an expired one.
	CodeDropLandFailed = "drop_land_failed"
	// CodeLandRecordMissing means: the record of … disappeared.
	CodeLandRecordMissing = "land_record_missing"
	// CodeLeadingDash means: a value starts with '-' (git would read it as an option).
	CodeLeadingDash = "leading_dash"
	// CodeListFailed means: git could not list the worktrees.
	CodeListFailed = "list_failed"
	// CodeListRemovedFailed means: cannot list removed worktrees.
	CodeListRemovedFailed = "list_removed_failed"
	// CodeListWithID means: list shows every removed worktree; it takes no id or path.
	CodeListWithID = "list_with_id"
	// CodeLockFailed means: the repository lock could not be taken.
	CodeLockFailed = "lock_failed"
	// CodeLockTimeout means: another copse held the repository lock past copse.lockTimeout; nothing changed.
	CodeLockTimeout = "lock_timeout"
	// CodeLockedByHuman means: the worktree is locked, and not by a copse claim.
	CodeLockedByHuman = "locked_by_human"
	// CodeLockedWorktree means: the worktree is locked (git worktree lock).
	CodeLockedWorktree = "locked_worktree"
	// CodeLogFailed means: cannot read the last commits.
	CodeLogFailed = "log_failed"
	// CodeMainCheckout means: the target is the main checkout, which copse never removes or claims.
	CodeMainCheckout = "main_checkout"
	// CodeMCPNotInstalled means: copse mcp cannot find or run the copse-mcp program.
	CodeMCPNotInstalled = "mcp_not_installed"
	// CodeMCPVersionMismatch means: copse-mcp is from another build than the copse that started it.
	CodeMCPVersionMismatch = "mcp_version_mismatch"
	// CodeMergeCommits means: land: a merge commit on the branch holds changes of its own (a conflict resolution or an edit) that a rebase drops; nothing was advanced and the branch was put back.
	CodeMergeCommits = "merge_commits"
	// CodeMissingField means: the request lacks a required field.
	CodeMissingField = "missing_field"
	// CodeMissingOperation means: no request was given.
	CodeMissingOperation = "missing_operation"
	// CodeNeedsApproval means: the request needs a human's confirmation; the hint carries the line to show and state_token the token to send back.
	CodeNeedsApproval = "needs_approval"
	// CodeNeedsConfirmation means: needs confirmation: pass --yes.
	CodeNeedsConfirmation = "needs_confirmation"
	// CodeNestedRepository means: the worktree holds untracked nested repositories a remove would delete.
	CodeNestedRepository = "nested_repository"
	// CodeNoBranch means: --delete-branch on a detached worktree.
	CodeNoBranch = "no_branch"
	// CodeNoCWD means: cannot read the current directory.
	CodeNoCWD = "no_cwd"
	// CodeNoDefaultTarget means: the main checkout has no branch checked out, so there is no default target.
	CodeNoDefaultTarget = "no_default_target"
	// CodeNoEditor means: neither $VISUAL nor $EDITOR is set.
	CodeNoEditor = "no_editor"
	// CodeNoPlan means: Execute was given no plan, or a plan of another operation (a bug in the caller).
	CodeNoPlan = "no_plan"
	// CodeNoOperations means: Open was given no Registry (a bug in the caller).
	CodeNoOperations = "no_operations"
	// CodeNoPreviousWorktree means: there is no previous worktree in this session.
	CodeNoPreviousWorktree = "no_previous_worktree"
	// CodeNoRemoteBranch means: the remote has no such branch.
	CodeNoRemoteBranch = "no_remote_branch"
	// CodeNoSetupConfigured means: nothing to set up: git config has no copse.copy and no copse.setup (and there is no .worktreeinclude or .copse.conf).
	CodeNoSetupConfigured = "no_setup_configured"
	// CodeNoSuchJob means: there is no land job …
	CodeNoSuchJob = "no_such_job"
	// CodeLandNoLog means: the land job has no test log (its test gate never ran).
	CodeLandNoLog = "land_no_log"
	// CodeNoSuchRemoved means: no removed worktree has id …
	CodeNoSuchRemoved = "no_such_removed"
	// CodeNoSuchWorkspace means: no worktree is open in workspace …
	CodeNoSuchWorkspace = "no_such_workspace"
	// CodeNoSuchWorktree means: no worktree matches the path, branch or id named.
	CodeNoSuchWorktree = "no_such_worktree"
	// CodeNoTarget means: copse is not running in a worktree.
	CodeNoTarget = "no_target"
	// CodeNoTerminal means: the picker needs a terminal, and /dev/tty cannot be opened.
	CodeNoTerminal = "no_terminal"
	// CodeNoWorkspaces means: workspace ids exist only inside Herdr or tmux; this is the … backend.
	CodeNoWorkspaces = "no_workspaces"
	// CodeNotARepository means: the directory is not inside a git repository.
	CodeNotARepository = "not_a_repository"
	// CodeNotClaimed means: release: the worktree is not claimed.
	CodeNotClaimed = "not_claimed"
	// CodeNotConfirmed means: not confirmed; nothing was changed.
	CodeNotConfirmed = "not_confirmed"
	// CodeNotObject means: request must be a JSON object, got …
	CodeNotObject = "not_object"
	// CodeNothingPicked means: the picker ended without a choice.
	CodeNothingPicked = "nothing_picked"
	// CodeNothingToRestore means: no removed worktree is recorded in this repository.
	CodeNothingToRestore = "nothing_to_restore"
	// CodeOpenUncertain means: herdr worktree open failed, but Herdr now shows a workspace for the worktree or lost one.
	CodeOpenUncertain = "open_uncertain"
	// CodeOpenUnverified means: herdr worktree open failed and Herdr's workspaces could not be read back.
	CodeOpenUnverified = "open_unverified"
	// CodeOperationInProgress means: a rebase, merge, cherry-pick, revert or bisect is under way in the worktree.
	CodeOperationInProgress = "operation_in_progress"
	// CodeOriginalPathTaken means: restore: the original path is taken by something else.
	CodeOriginalPathTaken = "original_path_taken"
	// CodeOutputLimit means: git printed more than the output cap and was stopped.
	CodeOutputLimit = "output_limit"
	// CodePathExists means: the path exists and is not an empty directory.
	CodePathExists = "path_exists"
	// CodePathInsideGitDir means: the path lies inside the git directory.
	CodePathInsideGitDir = "path_inside_git_dir"
	// CodePathInsideWorktree means: the path lies inside another worktree.
	CodePathInsideWorktree = "path_inside_worktree"
	// CodePathIsWorktree means: the path is already a worktree.
	CodePathIsWorktree = "path_is_worktree"
	// CodePathUnreadable means: the path cannot be inspected (permissions).
	CodePathUnreadable = "path_unreadable"
	// CodePiAgentDir means: cannot tell where pi keeps its extensions: …
	CodePiAgentDir = "pi_agent_dir"
	// CodePiExtensionChanged means: the pi extension file was changed since copse wrote it; it was kept.
	CodePiExtensionChanged = "pi_extension_changed"
	// CodePiExtensionUnreadable means: the pi extension file cannot be read.
	CodePiExtensionUnreadable = "pi_extension_unreadable"
	// CodePiExtensionWrite means: the pi extension file cannot be written.
	CodePiExtensionWrite = "pi_extension_write"
	// CodeOmpAgentDir means: cannot tell where Oh My Pi (omp) keeps its extensions: …
	CodeOmpAgentDir = "omp_agent_dir"
	// CodeOmpExtensionChanged means: the omp extension file was changed since copse wrote it; it was kept.
	CodeOmpExtensionChanged = "omp_extension_changed"
	// CodeOmpExtensionUnreadable means: the omp extension file cannot be read.
	CodeOmpExtensionUnreadable = "omp_extension_unreadable"
	// CodeOmpExtensionWrite means: the omp extension file cannot be written.
	CodeOmpExtensionWrite = "omp_extension_write"
	// CodeAgentHooksDir means: cannot tell where the agent keeps its settings: …
	CodeAgentHooksDir = "agent_hooks_dir"
	// CodeAgentSettingsMalformed means: the agent's settings file is not the JSON copse can merge hooks into; nothing was changed.
	CodeAgentSettingsMalformed = "agent_settings_malformed"
	// CodeAgentSettingsUnreadable means: the agent's settings file cannot be read.
	CodeAgentSettingsUnreadable = "agent_settings_unreadable"
	// CodeAgentSettingsWrite means: the agent's settings file cannot be written.
	CodeAgentSettingsWrite = "agent_settings_write"
	// CodeAgentPluginChanged means: the opencode plugin file was changed since copse wrote it (or copse did not write it); it was kept.
	CodeAgentPluginChanged = "agent_plugin_changed"
	// CodePreviewFailed means: the picker's preview could not read part of a worktree's state.
	CodePreviewFailed = "preview_failed"
	// CodeProjectCommandUnapproved means: .copse.conf asks to run setup or test commands no person approved on this machine; nothing ran.
	CodeProjectCommandUnapproved = "project_command_unapproved"
	// CodeProcessesRunning means: a process works in the worktree (its directory or an open file is inside); remove refuses without --force.
	CodeProcessesRunning = "processes_running"
	// CodePrunableWorktree means: git lists the worktree but its directory is gone.
	CodePrunableWorktree = "prunable_worktree"
	// CodePruneIncomplete means: prune ran but some worktrees it removed are still listed or on disk.
	CodePruneIncomplete = "prune_incomplete"
	// CodePruneUnverified means: prune removed …, but the worktree list could not be read back.
	CodePruneUnverified = "prune_unverified"
	// CodeReadFailed means: could not read the request: …
	CodeReadFailed = "read_failed"
	// CodeRebaseAbortFailed means: cannot abort the rebase copse started.
	CodeRebaseAbortFailed = "rebase_abort_failed"
	// CodeRebaseConflict means: land: rebasing onto the target stopped on conflicts; the rebase is left open in the worktree.
	CodeRebaseConflict = "rebase_conflict"
	// CodeRebaseFailed means: land: git rebase failed.
	CodeRebaseFailed = "rebase_failed"
	// CodeRebaseInProgress means: land: a rebase an earlier land started is still in progress in the worktree.
	CodeRebaseInProgress = "rebase_in_progress"
	// CodeRebaseChanged means: land --force-restart: the rebase a land left open was worked on since it stopped (files edited, staged or resolved, commits made), or what it held then is unknown; nothing was aborted.
	CodeRebaseChanged = "rebase_changed"
	// CodeRebaseNotOurs means: the rebase in progress in … was not started by a copse land (its head-name, orig-head and onto match no land record); copse aborts only its own.
	CodeRebaseNotOurs = "rebase_not_ours"
	// CodeRelativePath means: a path is not absolute.
	CodeRelativePath = "relative_path"
	// CodeRemoteBranchesFailed means: cannot list the remote branches.
	CodeRemoteBranchesFailed = "remote_branches_failed"
	// CodeRemoteListFailed means: git could not list the remotes.
	CodeRemoteListFailed = "remote_list_failed"
	// CodeRemoveFailed means: git worktree remove refused.
	CodeRemoveFailed = "remove_failed"
	// CodeRemoveIncomplete means: remove ran but the worktree is still listed by git or still on disk.
	CodeRemoveIncomplete = "remove_incomplete"
	// CodeRemoveInterrupted means: remove failed or was cancelled part way; the message says what is left.
	CodeRemoveInterrupted = "remove_interrupted"
	// CodeRemoveUnverified means: remove of … ran, but the worktree list could not be read back.
	CodeRemoveUnverified = "remove_unverified"
	// CodeRepoInfoFailed means: cannot find the git directory.
	CodeRepoInfoFailed = "repo_info_failed"
	// CodeResolveBaseFailed means: git could not resolve the base.
	CodeResolveBaseFailed = "resolve_base_failed"
	// CodeResolveRemoteFailed means: cannot resolve the remote branch.
	CodeResolveRemoteFailed = "resolve_remote_failed"
	// CodeRestoreDiffers means: restore ran but the worktree does not match the record.
	CodeRestoreDiffers = "restore_differs"
	// CodeRestoreFailed means: git could not add the worktree.
	CodeRestoreFailed = "restore_failed"
	// CodeRestoreIncomplete means: restore added the worktree but could not write back all its recorded files.
	CodeRestoreIncomplete = "restore_incomplete"
	// CodeRestoreNotListed means: git reported success but does not list …
	CodeRestoreNotListed = "restore_not_listed"
	// CodeRestoreUncertain means: restore failed (…) but the worktree list changed.
	CodeRestoreUncertain = "restore_uncertain"
	// CodeRestoreUnverified means: restore to … ran, but the worktree list could not be read back.
	CodeRestoreUnverified = "restore_unverified"
	// CodeRestoreWrongBranch means: restore ran but git lists the worktree on another branch.
	CodeRestoreWrongBranch = "restore_wrong_branch"
	// CodeRestoreWrongCommit means: restore ran but git lists the worktree at another commit.
	CodeRestoreWrongCommit = "restore_wrong_commit"
	// CodeRollbackFailed means: land: syncing the target checkout failed and moving the target back failed too.
	CodeRollbackFailed = "rollback_failed"
	// CodeRunBadCommand means: create --run or --prompt: the command or prompt cannot be passed safely (empty, control characters, prompt without run).
	CodeRunBadCommand = "run_bad_command"
	// CodeRunNeedsWorkspace means: create --run: this backend has no window to start the command in; it is not run in the foreground.
	CodeRunNeedsWorkspace = "run_needs_workspace"
	// CodeSessionRequired means: the operation needs a session id and none was given.
	CodeSessionRequired = "session_required"
	// CodeSetupCopyFailed means: cannot list the files copse.copy names.
	CodeSetupCopyFailed = "setup_copy_failed"
	// CodeSetupFailed means: a copse.setup command could not start or failed; the worktree stays.
	CodeSetupFailed = "setup_failed"
	// CodeSetupTimeout means: a copse.setup command did not finish in time and was stopped; the worktree stays.
	CodeSetupTimeout = "setup_timeout"
	// CodeSnapshotFailed means: the record of what a remove deletes could not be made; nothing was removed.
	CodeSnapshotFailed = "snapshot_failed"
	// CodeStaleConfirmation means: this confirmation is unknown or expired; nothing ran.
	CodeStaleConfirmation = "stale_confirmation"
	// CodeStaleState means: the state changed since state_token … was read; nothing ran.
	CodeStaleState = "stale_state"
	// CodeStatFailed means: a file copse needs to inspect cannot be read.
	CodeStatFailed = "stat_failed"
	// CodeStateTokenRequired means: an approved … must carry the expected_state_token of the confirmation the user saw.
	CodeStateTokenRequired = "state_token_required"
	// CodeStatusFailed means: cannot read the status of …
	CodeStatusFailed = "status_failed"
	// CodeStatusUnknown means: what a remove would lose cannot be told (status failed).
	CodeStatusUnknown = "status_unknown"
	// CodeSyncFailed means: git read-tree failed.
	CodeSyncFailed = "sync_failed"
	// CodeTargetBusy means: land: the target branch is being rebased or bisected, or its checkout changed branch.
	CodeTargetBusy = "target_busy"
	// CodeTargetCheckedOutTwice means: land: the target branch is checked out in several worktrees.
	CodeTargetCheckedOutTwice = "target_checked_out_twice"
	// CodeTargetDirtyOverlap means: land: the target's checkout has uncommitted changes in paths the land changes.
	CodeTargetDirtyOverlap = "target_dirty_overlap"
	// CodeTargetIgnoredOverlap means: land: ignored files in the target's checkout are at paths the land would replace or remove.
	CodeTargetIgnoredOverlap = "target_ignored_overlap"
	// CodeTargetMissing means: the target branch … does not exist.
	CodeTargetMissing = "target_missing"
	// CodeTargetMoved means: land: the target kept moving during the land, past copse.landRetries.
	CodeTargetMoved = "target_moved"
	// CodeTargetSyncFailed means: land: the target's checkout could not be brought up to date; the target was moved back.
	CodeTargetSyncFailed = "target_sync_failed"
	// CodeGateStillRunning means: land: processes of a test gate of this worktree still run (named by pid); they may still change the tree.
	CodeGateStillRunning = "gate_still_running"
	// CodeTestChangedWorktree means: land: the test gate moved the worktree's HEAD or branch.
	CodeTestChangedWorktree = "test_changed_worktree"
	// CodeTestFailed means: land: the test gate exited non-zero.
	CodeTestFailed = "test_failed"
	// CodeTestNotRun means: the test gate could not run: …
	CodeTestNotRun = "test_not_run"
	// CodeTestTimeout means: the test gate did not finish within … (its process group was killed).
	CodeTestTimeout = "test_timeout"
	// CodeTimeout means: git did not finish within the timeout and was stopped.
	CodeTimeout = "timeout"
	// CodeTmuxFailed means: a tmux command failed (the server did not answer, a window vanished).
	CodeTmuxFailed = "tmux_failed"
	// CodeTmuxNotDetected means: --backend tmux was asked for, but TMUX is not set.
	CodeTmuxNotDetected = "tmux_not_detected"
	// CodeTmuxUnusable means: TMUX is set but tmux cannot be used (no pane id, no answer).
	CodeTmuxUnusable = "tmux_unusable"
	// CodeTmuxWindowFailed means: the worktree was created or removed, but its tmux window could not be opened or closed.
	CodeTmuxWindowFailed = "tmux_window_failed"
	// CodeTooDeep means: request nests deeper than … levels.
	CodeTooDeep = "too_deep"
	// CodeTooLarge means: request is larger than 1 MiB.
	CodeTooLarge = "too_large"
	// CodeTooLong means: a value is longer than its limit.
	CodeTooLong = "too_long"
	// CodeTrailingData means: unexpected data after the request object: …
	CodeTrailingData = "trailing_data"
	// CodeUnbornHead means: the worktree … was recorded on an unborn branch, which copse cannot check out again.
	CodeUnbornHead = "unborn_head"
	// CodeUncleanPath means: a path is not in clean form (double slashes, trailing slash).
	CodeUncleanPath = "unclean_path"
	// CodeUniqueCommitsFailed means: cannot count the unique commits of …
	CodeUniqueCommitsFailed = "unique_commits_failed"
	// CodeUnknownBase means: base … does not name a commit.
	CodeUnknownBase = "unknown_base"
	// CodeUnknownField means: the request has a field its operation does not take.
	CodeUnknownField = "unknown_field"
	// CodeUnknownOperation means: the operation named is not one copse knows.
	CodeUnknownOperation = "unknown_operation"
	// CodeUnknownShell means: no shell integration for …
	CodeUnknownShell = "unknown_shell"
	// CodeUnlockFailed means: git worktree unlock failed.
	CodeUnlockFailed = "unlock_failed"
	// CodeUnmergedBranch means: --delete-branch: the branch has commits on no other branch or remote.
	CodeUnmergedBranch = "unmerged_branch"
	// CodeUntrimmedValue means: a value starts or ends with white space.
	CodeUntrimmedValue = "untrimmed_value"
	// CodeUpstreamNotSet means: the worktree was created but its upstream could not be set.
	CodeUpstreamNotSet = "upstream_not_set"
	// CodeUsage means: the command line is malformed: unknown flag or command, missing or extra argument.
	CodeUsage = "usage"
	// CodeWorktreeBranchChanged means: land: the worktree no longer has the branch checked out.
	CodeWorktreeBranchChanged = "worktree_branch_changed"
	// CodeWorktreeDirty means: land: the worktree has uncommitted changes or untracked files.
	CodeWorktreeDirty = "worktree_dirty"
	// CodeWorktreeGone means: land: the worktree is gone.
	CodeWorktreeGone = "worktree_gone"
	// CodeWorktreeIgnoredOverlap means: land: ignored files in the worktree being landed are at paths its rebase would replace or remove.
	CodeWorktreeIgnoredOverlap = "worktree_ignored_overlap"
	// CodeWorktreeUnreadable means: cannot find the git directory of …
	CodeWorktreeUnreadable = "worktree_unreadable"
	// CodeWrongType means: a request field has the wrong JSON type.
	CodeWrongType = "wrong_type"
)
