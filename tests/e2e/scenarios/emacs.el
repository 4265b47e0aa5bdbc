;;; emacs.el --- Emacs 28 + eglot 1.9 scenario for hf-cache-lint  -*- lexical-binding: t -*-
;; The configuration is the README's eglot snippet (HFC_SNIPPET, loaded as an init file would be): opening the
;; file starts the server through `eglot-ensure'; then wait for the flymake diagnostic, hover, and apply a quick
;; fix through `eglot-code-actions' (its completing-read answered with the wanted title).
;; Inputs (env): HFC_SNIPPET, HFC_FILE, HFC_ROOT, HFC_FIX_TITLE, HFC_TIMEOUT_S; output: HFC_RESULT.
(dolist (dir (file-expand-wildcards "/usr/share/emacs/site-lisp/elpa/*"))
  (add-to-list 'load-path dir))
(require 'json)
(require 'cl-lib)
(require 'project)
(load (getenv "HFC_SNIPPET") nil t)
(require 'eglot)

(defvar hfc-result nil "Alist written as JSON at the end.")
(defvar hfc-timeout (string-to-number (or (getenv "HFC_TIMEOUT_S") "60")))

(defun hfc-put (key value) (push (cons key value) hfc-result))

(defun hfc-wait (predicate)
  "Process server output until PREDICATE holds or the timeout passes; return its last value."
  (let ((deadline (+ (float-time) hfc-timeout)) (value nil))
    (while (and (not (setq value (funcall predicate))) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    value))

(defun hfc-our-diagnostics ()
  (flymake-start)
  (flymake-diagnostics))

(defun hfc-scenario ()
  (let* ((root (file-name-as-directory (getenv "HFC_ROOT")))
         (want (getenv "HFC_FIX_TITLE")))
    ;; A transient project rooted at the workspace (no VCS needed).
    (setq project-find-functions (list (lambda (_dir) (cons 'transient root))))
    (find-file (getenv "HFC_FILE"))
    (hfc-put 'mode (symbol-name major-mode))
    ;; `eglot-ensure' (the snippet's python-mode-hook) connects from `post-command-hook', at the end of the
    ;; command that opened the file; batch mode runs no command loop, so end that command here.
    (run-hooks 'post-command-hook)
    (hfc-wait #'eglot-current-server)
    (hfc-put 'server (and (eglot-current-server) t))
    (hfc-put 'command (vconcat (cdr (assq 'python-mode eglot-server-programs))))

    (let ((diags (hfc-wait #'hfc-our-diagnostics)))
      (hfc-put 'diagnostics
               (vconcat (mapcar (lambda (d)
                                  (let ((beg (flymake-diagnostic-beg d)) (end (flymake-diagnostic-end d)))
                                    `((message . ,(flymake-diagnostic-text d))
                                      (type . ,(symbol-name (flymake-diagnostic-type d)))
                                      (start_line . ,(1- (line-number-at-pos beg)))
                                      (start_col . ,(save-excursion (goto-char beg) (current-column)))
                                      (end_line . ,(1- (line-number-at-pos end)))
                                      (end_col . ,(save-excursion (goto-char end) (current-column))))))
                                diags)))
      (unless diags (error "No diagnostic within %ss" hfc-timeout))

      ;; Hover at the start of the flagged range, rendered as eglot renders it.
      (goto-char (flymake-diagnostic-beg (car diags)))
      (let ((hover (jsonrpc-request (eglot-current-server) :textDocument/hover
                                    (eglot--TextDocumentPositionParams))))
        (hfc-put 'hover (and hover (eglot--hover-info (plist-get hover :contents)))))

      ;; Quick fix: eglot 1.9 lists only kind "quickfix"; answer its menu with the wanted title.
      ;; As invoked from the keyboard (M-x), so eglot asks with completing-read rather than a mouse menu.
      (let ((offered nil) (last-nonmenu-event ?\r))
        (cl-letf (((symbol-function 'completing-read)
                   (lambda (_prompt collection &rest _)
                     (setq offered (mapcar #'car collection))
                     want)))
          (eglot-code-actions (flymake-diagnostic-beg (car diags)) (flymake-diagnostic-end (car diags))
                              "quickfix" t))
        (hfc-put 'action_titles (vconcat offered)))
      (hfc-put 'text_after_fix (buffer-substring-no-properties (point-min) (point-max)))
      ;; eglot sends didChange from an idle timer, and idle timers never fire in batch mode.
      (eglot--signal-textDocument/didChange)
      (hfc-put 'cleared (if (hfc-wait (lambda () (null (hfc-our-diagnostics)))) t :json-false))
      (ignore-errors (eglot-shutdown (eglot-current-server))))))

(condition-case err
    (hfc-scenario)
  (error (hfc-put 'error (error-message-string err))))
(with-temp-file (getenv "HFC_RESULT")
  (insert (json-encode hfc-result)))
(kill-emacs 0)
