# Prints NAME=VALUE for every input of an action.yml that has a default.
/^inputs:/ { ininputs = 1; next }
/^[^ #]/ { ininputs = 0 }
ininputs && /^  [A-Za-z0-9_-]+:[ ]*$/ { name = $1; sub(/:$/, "", name); next }
ininputs && /^    default:/ {
  v = $0; sub(/^    default:[ ]*/, "", v)
  if (v ~ /^'.*'$/ || v ~ /^".*"$/) v = substr(v, 2, length(v) - 2)
  print name "=" v
}
