# The calculator: add A B prints their sum.
add() {
  echo $(( $1 - $2 ))
}
