; grammar: hcl
; extensions: .tf .tfvars .hcl .nomad
; manifests: *.tf terragrunt.hcl .terraform.lock.hcl
; excluded_dirs: .terraform .terragrunt-cache
; transparent: body
; Definitions of HCL/Terraform: a block named by its labels, the way Terraform addresses it
; (`resource "aws_s3_bucket" "logs"` is `aws_s3_bucket.logs`, `variable "region"` is `region`).
(block (identifier) (string_lit (template_literal) @name) (string_lit (template_literal) @name)) @definition.class
(block (identifier) . (string_lit (template_literal) @name) . (block_start)) @definition.class
