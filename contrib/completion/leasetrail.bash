# bash completion for leasetrail(1): commands, their options (as `leasetrail COMMAND --help`
# lists them), option values, canned query names, and node and NAMESPACE/LEASE names from the
# store (--db, else $LEASETRAIL_DB, else ./leasetrail.db).  The words come from the binary
# being completed (`leasetrail __complete ...`), so they always match its version; names are
# prefix-filtered by the store and hold only the characters of Kubernetes names.
# Installed as share/bash-completion/completions/leasetrail; needs no bash-completion helpers.

_leasetrail() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local bin=${COMP_WORDS[0]} cmd= i w
	local -a db=()
	bin=${bin/#\~/$HOME}
	COMPREPLY=()
	# the command (first word that is no option nor an option's value) and --db
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in
		--db)
			db=(--db "${COMP_WORDS[i + 1]}")
			((i++))
			;;
		--db=*) db=(--db "${w#--db=}") ;;
		-o | --output | -O | --output-file | --since | --until | --gap | --slow | --emit | --table | --year | --utc-offset | --node | --cluster | --tz | \
			--user | --verb | --resource | --namespace | --source-ip | --code | --slower-than | --by | --limit)
			((i++))
			;;
		-*) ;;
		*) [[ -z $cmd ]] && cmd=$w ;;
		esac
	done
	case $prev in
	--db) return 0 ;; # files: complete -o default
	-o | --output)
		if [[ $cmd == report ]]; then
			COMPREPLY=($(compgen -W "md html" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "table wide csv json jsonl" -- "$cur"))
		fi
		return 0
		;;
	--tz) # UTC, local, and tzdata's zones (its zone1970.tab)
		COMPREPLY=($(compgen -W "UTC local $(awk '!/^#/ { print $3 }' \
			"${TZDIR:-/usr/share/zoneinfo}/zone1970.tab" 2>/dev/null)" -- "$cur"))
		return 0
		;;
	-O | --output-file) return 0 ;; # a file: complete -o default
	--emit)
		COMPREPLY=($(compgen -W "cwli kql logging bigquery athena" -- "$cur"))
		return 0
		;;
	--table) # kql's tables and athena's shapes; a bigquery dataset is the user's
		COMPREPLY=($(compgen -W "AKSAudit AKSAuditAdmin AzureDiagnostics export firehose" -- "$cur"))
		compopt +o default 2>/dev/null
		return 0
		;;
	--node)
		mapfile -t COMPREPLY < <("$bin" __complete names "${db[@]}" -- "$cur" 2>/dev/null)
		return 0
		;;
	--cluster)
		COMPREPLY=($(compgen -W "$("$bin" __complete clusters "${db[@]}" 2>/dev/null)" -- "$cur"))
		compopt +o default 2>/dev/null
		return 0
		;;
	--by)
		COMPREPLY=($(compgen -W "user verb resource code source-ip user-agent" -- "$cur"))
		compopt +o default 2>/dev/null
		return 0
		;;
	--verb)
		COMPREPLY=($(compgen -W "get list watch create update patch delete deletecollection" -- "$cur"))
		compopt +o default 2>/dev/null
		return 0
		;;
	--resource) # the resources the store reads, and their subresources as kubectl writes them
		COMPREPLY=($(compgen -W "leases leases/ nodes nodes/ nodes/status pods pods/status pods/binding pods/eviction /status" -- "$cur"))
		compopt +o default 2>/dev/null
		return 0
		;;
	--since | --until | --gap | --slow | --year | --utc-offset | --user | --namespace | --source-ip | --code | --slower-than | --limit)
		compopt +o default 2>/dev/null
		return 0
		;;
	esac
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--help --version" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$("$bin" __complete commands 2>/dev/null)" -- "$cur"))
		fi
		compopt +o default 2>/dev/null
		return 0
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$("$bin" __complete options "$cmd" 2>/dev/null)" -- "$cur"))
		compopt +o default 2>/dev/null
		return 0
	fi
	case $cmd in
	ingest) ;; # files and directories: complete -o default
	timeline | report)
		mapfile -t COMPREPLY < <("$bin" __complete names "${db[@]}" -- "$cur" 2>/dev/null)
		compopt +o default 2>/dev/null
		;;
	query)
		local queries
		queries=$("$bin" __complete queries 2>/dev/null)
		[[ " ${COMP_WORDS[*]} " == *" --emit "* ]] && queries+=" events"
		COMPREPLY=($(compgen -W "$queries" -- "$cur"))
		compopt +o default 2>/dev/null
		;;
	help)
		COMPREPLY=($(compgen -W "$("$bin" __complete commands 2>/dev/null)" -- "$cur"))
		compopt +o default 2>/dev/null
		;;
	*) compopt +o default 2>/dev/null ;;
	esac
	return 0
}
complete -o default -F _leasetrail leasetrail
