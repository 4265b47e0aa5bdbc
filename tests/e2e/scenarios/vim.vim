" Vim 9 + ALE scenario for hf-cache-lint. The linter is the README's snippet, in ale_linters/python/ of a folder
" put on 'runtimepath' (HFC_RTP) as ~/.vim is: ALE loads it for Python buffers. :ALELint until the diagnostic
" arrives, :ALEHover, then :ALECodeAction with ALE's number prompt answered for the wanted title.
" Inputs (env): HFC_RTP, HFC_FILE, HFC_FIX_TITLE, HFC_TIMEOUT_MS; output: HFC_RESULT.
set nocompatible
execute 'set runtimepath^=' . fnameescape($HFC_RTP)
set runtimepath^=/usr/share/vim-ale
let g:ale_hover_to_preview = 1
let g:ale_set_balloons = 0
let g:ale_echo_cursor = 0
let g:ale_virtualtext_cursor = 0
let g:ale_lint_on_text_changed = 'never'
let g:ale_lint_on_insert_leave = 0
" Only ours (a user's other Python linters would run beside it; here they would muddle the result).
let g:ale_linters = {'python': ['hf_cache_lint']}
runtime plugin/ale.vim

let s:result = {'steps': []}
let s:timeout = str2nr($HFC_TIMEOUT_MS ==# '' ? '60000' : $HFC_TIMEOUT_MS)

" Wait for a condition (an expression string), letting jobs, channels and timers run.
function! s:Wait(expr) abort
  let l:deadline = reltimefloat(reltime()) + s:timeout / 1000.0
  while !eval(a:expr) && reltimefloat(reltime()) < l:deadline
    sleep 50m
  endwhile
  return eval(a:expr)
endfunction

function! s:Ours() abort
  return filter(copy(get(get(g:ale_buffer_info, bufnr(''), {}), 'loclist', [])),
  \ 'get(v:val, "linter_name", "") is# "hf_cache_lint"')
endfunction

function! s:PreviewText() abort
  for l:nr in range(1, bufnr('$'))
    if bufexists(l:nr) && getbufvar(l:nr, '&filetype') =~# '^ale-preview'
      return join(getbufline(l:nr, 1, '$'), "\n")
    endif
  endfor
  return ''
endfunction

" ALE asks which code action to apply with ale#util#Input (a numbered list): answer with the wanted one.
runtime autoload/ale/util.vim
function! ale#util#Input(message, value, ...) abort
  let s:result.action_prompt = a:message
  for l:line in split(a:message, "\n")
    let l:m = matchlist(l:line, '^\(\d\+\)) \(.*\)$')
    if !empty(l:m) && l:m[2] is# $HFC_FIX_TITLE
      let s:result.matched = v:true
      return l:m[1]
    endif
  endfor
  return ''
endfunction

function! s:Scenario() abort
  execute 'edit ' . fnameescape($HFC_FILE)
  set filetype=python
  ALELint
  if !s:Wait('len(s:Ours()) > 0')
    throw 'no diagnostic within ' . s:timeout . ' ms'
  endif
  let s:result.diagnostics = map(s:Ours(), '{"text": v:val.text, "code": get(v:val, "code", ""),'
  \ . ' "type": v:val.type, "lnum": v:val.lnum, "col": v:val.col,'
  \ . ' "end_lnum": get(v:val, "end_lnum", -1), "end_col": get(v:val, "end_col", -1)}')
  call add(s:result.steps, 'diagnostic')

  let l:first = s:Ours()[0]
  call cursor(l:first.lnum, l:first.col)
  ALEHover
  call s:Wait('s:PreviewText() !=# ""')
  let s:result.hover = s:PreviewText()
  pclose
  call add(s:result.steps, 'hover')

  let l:before = join(getline(1, '$'), "\n")
  call cursor(l:first.lnum, l:first.col)
  ALECodeAction
  call s:Wait('has_key(s:result, "action_prompt")')
  if !get(s:result, 'matched', v:false)
    throw 'the quick fix ' . $HFC_FIX_TITLE . ' was not offered'
  endif
  call s:Wait('join(getline(1, "$"), "\n") !=# ' . string(l:before))
  let s:result.text_after_fix = join(getline(1, '$'), "\n") . "\n"
  call add(s:result.steps, 'fix')

  ALELint
  let s:result.cleared = s:Wait('len(s:Ours()) == 0') ? v:true : v:false
  ALEStopAllLSPs
endfunction

try
  call s:Scenario()
catch
  let s:result.error = v:exception . ' @ ' . v:throwpoint
endtry
call writefile([json_encode(s:result)], $HFC_RESULT)
qall!
